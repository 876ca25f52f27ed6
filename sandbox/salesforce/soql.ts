// The subset of SOQL the stand-in answers, from the SOQL and SOSL Reference
// (developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/):
//   SELECT field, … FROM object [WHERE condition] [ORDER BY field [ASC|DESC] [NULLS FIRST|LAST], …] [LIMIT n]
// conditions of `field op value` (= != < <= > >=), `field [NOT] IN (values)`,
// AND, OR and parentheses; values are 'quoted strings' (\' escapes), numbers,
// null, true/false and dateTime literals (2024-05-01T10:00:00Z). String
// comparisons are case-insensitive; `field != value` matches nulls too.
// Anything else (relationship paths, functions, GROUP BY, date literals such
// as TODAY, sub-queries) is answered MALFORMED_QUERY, as Salesforce answers a
// query it cannot parse. A WHERE on a field that is not filterable (long text
// areas, base64) is INVALID_FIELD "can not be filtered in query call", as
// the reference's fieldExpression section says ("any field except a long
// text area field, encrypted data field, or base64-encoded field").
import type { Field, SObjectRecord, SObjectType } from './org.ts';

export class SoqlError extends Error {
  readonly errorCode: 'MALFORMED_QUERY' | 'INVALID_FIELD' | 'INVALID_TYPE';
  constructor(errorCode: SoqlError['errorCode'], message: string) {
    super(message);
    this.errorCode = errorCode;
  }
}

type Value = string | number | boolean | null | { dateTime: number };
type Condition =
  | { kind: 'and'; parts: Condition[] }
  | { kind: 'or'; parts: Condition[] }
  | { kind: 'compare'; field: string; op: string; value: Value }
  | { kind: 'in'; field: string; negated: boolean; values: Value[] };

export interface SoqlQuery {
  fields: string[];
  object: string;
  where: Condition | null;
  orderBy: Array<{ field: string; descending: boolean; nullsLast: boolean }>;
  limit: number | null;
}

const TOKEN = /\s*(?:('(?:[^'\\]|\\.)*')|(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:?\d{2}))|(-?\d+(?:\.\d+)?)|(!=|<=|>=|=|<|>|\(|\)|,)|([A-Za-z_][A-Za-z0-9_.]*))/y;

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    if (/^\s*$/.test(text.slice(TOKEN.lastIndex))) break;
    const at = TOKEN.lastIndex;
    const match = TOKEN.exec(text);
    if (!match) throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${text.slice(at).trim().split(/\s/)[0]}'`);
    tokens.push(match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5]!);
  }
  return tokens;
}

export function parseSoql(text: string): SoqlQuery {
  const tokens = tokenize(text);
  let index = 0;
  const peek = () => tokens[index];
  const isWord = (word: string) => peek()?.toUpperCase() === word;
  const expect = (word: string) => {
    if (!isWord(word)) throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${peek() ?? '<EOF>'}', expected ${word}`);
    index++;
  };
  const name = () => {
    const token = peek();
    if (!token || !/^[A-Za-z_]/.test(token)) throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${token ?? '<EOF>'}'`);
    if (token.includes('.')) throw new SoqlError('MALFORMED_QUERY', `relationship paths are not answered by this stand-in: '${token}'`);
    index++;
    return token;
  };
  const value = (): Value => {
    const token = peek();
    if (token === undefined) throw new SoqlError('MALFORMED_QUERY', "unexpected token: '<EOF>'");
    index++;
    if (token.startsWith("'")) return token.slice(1, -1).replace(/\\(.)/g, (_all, char: string) => ({ n: '\n', t: '\t', r: '\r' })[char] ?? char);
    if (/^\d{4}-\d{2}-\d{2}T/.test(token)) return { dateTime: Date.parse(token.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) };
    if (/^-?\d/.test(token)) return Number(token);
    if (token.toLowerCase() === 'null') return null;
    if (token.toLowerCase() === 'true' || token.toLowerCase() === 'false') return token.toLowerCase() === 'true';
    throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${token}'`);
  };
  const factor = (): Condition => {
    if (peek() === '(') {
      index++;
      const inner = or();
      if (peek() !== ')') throw new SoqlError('MALFORMED_QUERY', "expecting a right parentheses, found '" + (peek() ?? '<EOF>') + "'");
      index++;
      return inner;
    }
    const field = name();
    const negated = isWord('NOT');
    if (negated) index++;
    if (isWord('IN')) {
      index++;
      if (peek() !== '(') throw new SoqlError('MALFORMED_QUERY', "expecting a left parentheses after IN");
      index++;
      const values: Value[] = [value()];
      while (peek() === ',') {
        index++;
        values.push(value());
      }
      if (peek() !== ')') throw new SoqlError('MALFORMED_QUERY', "expecting a right parentheses");
      index++;
      return { kind: 'in', field, negated, values };
    }
    if (negated) throw new SoqlError('MALFORMED_QUERY', "unexpected token: 'NOT'");
    const op = peek();
    if (!op || !['=', '!=', '<', '<=', '>', '>='].includes(op)) throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${op ?? '<EOF>'}'`);
    index++;
    return { kind: 'compare', field, op, value: value() };
  };
  const and = (): Condition => {
    const parts = [factor()];
    while (isWord('AND')) {
      index++;
      parts.push(factor());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'and', parts };
  };
  const or = (): Condition => {
    const parts = [and()];
    while (isWord('OR')) {
      index++;
      parts.push(and());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'or', parts };
  };

  expect('SELECT');
  const fields = [name()];
  while (peek() === ',') {
    index++;
    fields.push(name());
  }
  expect('FROM');
  const object = name();
  const where = isWord('WHERE') ? (index++, or()) : null;
  const orderBy: SoqlQuery['orderBy'] = [];
  if (isWord('ORDER')) {
    index++;
    expect('BY');
    do {
      if (peek() === ',') index++;
      const field = name();
      let descending = false;
      if (isWord('ASC') || isWord('DESC')) descending = tokens[index++]!.toUpperCase() === 'DESC';
      // SOQL: ascending puts nulls first, descending last, unless NULLS says otherwise.
      let nullsLast = descending;
      if (isWord('NULLS')) {
        index++;
        if (!isWord('FIRST') && !isWord('LAST')) throw new SoqlError('MALFORMED_QUERY', 'expecting FIRST or LAST after NULLS');
        nullsLast = tokens[index++]!.toUpperCase() === 'LAST';
      }
      orderBy.push({ field, descending, nullsLast });
    } while (peek() === ',');
  }
  let limit: number | null = null;
  if (isWord('LIMIT')) {
    index++;
    const count = value();
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw new SoqlError('MALFORMED_QUERY', 'LIMIT takes a whole number');
    limit = count;
  }
  if (index < tokens.length) throw new SoqlError('MALFORMED_QUERY', `unexpected token: '${tokens[index]}'`);
  return { fields, object, where, orderBy, limit };
}

/** The fields a condition names. */
function conditionFields(condition: Condition | null): Array<{ field: string; value: Value }> {
  if (!condition) return [];
  if (condition.kind === 'and' || condition.kind === 'or') return condition.parts.flatMap(conditionFields);
  if (condition.kind === 'in') return condition.values.map((value) => ({ field: condition.field, value }));
  return [{ field: condition.field, value: condition.value }];
}

const NUMERIC = new Set(['double', 'int', 'percent', 'currency']);

/** Checks the query against the object as the user sees it (fields, filterability, value types). */
export function checkQuery(query: SoqlQuery, object: SObjectType, visible: (field: Field) => boolean): void {
  const fieldOf = (name: string) => {
    const found = [...object.fields.values()].find((each) => each.name.toLowerCase() === name.toLowerCase() && visible(each));
    if (!found) {
      throw new SoqlError('INVALID_FIELD', `No such column '${name}' on entity '${object.name}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`);
    }
    return found;
  };
  for (const name of query.fields) fieldOf(name);
  for (const { field: name, value } of conditionFields(query.where)) {
    const field = fieldOf(name);
    if (!field.filterable) throw new SoqlError('INVALID_FIELD', `field '${field.name}' can not be filtered in query call`);
    if (value === null) continue;
    const isNumber = NUMERIC.has(field.type);
    const expected = isNumber ? typeof value === 'number' : field.type === 'datetime' ? typeof value === 'object' : field.type === 'boolean' ? typeof value === 'boolean' : typeof value === 'string';
    if (!expected) {
      throw new SoqlError('INVALID_FIELD', `value of filter criterion for field '${field.name}' must be of type ${field.type === 'id' || field.type === 'reference' || field.type === 'email' || field.type === 'picklist' ? 'string' : field.type} and should${isNumber || field.type === 'datetime' ? ' not' : ''} be enclosed in quotes`);
    }
  }
  for (const order of query.orderBy) {
    const field = fieldOf(order.field);
    if (!field.sortable) throw new SoqlError('INVALID_FIELD', `field '${field.name}' can not be sorted in a query call`);
  }
}

const comparable = (value: unknown, field: Field | undefined): number | string | boolean | null => {
  if (value === null || value === undefined) return null;
  if (field?.type === 'datetime') return Date.parse(String(value).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value).toLowerCase();
};

const literal = (value: Value): number | string | boolean | null =>
  value === null ? null : typeof value === 'object' ? value.dateTime : typeof value === 'string' ? value.toLowerCase() : value;

export function matches(record: SObjectRecord, condition: Condition | null, object: SObjectType): boolean {
  if (!condition) return true;
  if (condition.kind === 'and') return condition.parts.every((part) => matches(record, part, object));
  if (condition.kind === 'or') return condition.parts.some((part) => matches(record, part, object));
  const field = [...object.fields.values()].find((each) => each.name.toLowerCase() === condition.field.toLowerCase());
  const actual = comparable(record[field?.name ?? condition.field], field);
  if (condition.kind === 'in') {
    const found = condition.values.some((value) => literal(value) === actual);
    return condition.negated ? !found : found;
  }
  const expected = literal(condition.value);
  if (condition.op === '=') return actual === expected;
  if (condition.op === '!=') return actual !== expected;
  if (actual === null || expected === null) return false;
  if (condition.op === '<') return actual < expected;
  if (condition.op === '<=') return actual <= expected;
  if (condition.op === '>') return actual > expected;
  return actual >= expected;
}

export function sortRecords(records: SObjectRecord[], query: SoqlQuery, object: SObjectType): SObjectRecord[] {
  return [...records].sort((a, b) => {
    for (const order of query.orderBy) {
      const field = [...object.fields.values()].find((each) => each.name.toLowerCase() === order.field.toLowerCase());
      const left = comparable(a[field?.name ?? order.field], field);
      const right = comparable(b[field?.name ?? order.field], field);
      if (left === right) continue;
      if (left === null) return order.nullsLast ? 1 : -1;
      if (right === null) return order.nullsLast ? -1 : 1;
      const sign = left < right ? -1 : 1;
      return order.descending ? -sign : sign;
    }
    return 0;
  });
}

/** ContentDocumentLink: "requires a filter by a single Id on ContentDocumentId or LinkedEntityId using the equals operator or multiple Id's using the IN operator". */
export function filtersOnLinkIds(condition: Condition | null): boolean {
  if (!condition) return false;
  if (condition.kind === 'and') return condition.parts.some(filtersOnLinkIds);
  if (condition.kind === 'or') return false;
  const isIdField = ['contentdocumentid', 'linkedentityid', 'id'].includes(condition.field.toLowerCase());
  return isIdField && (condition.kind === 'in' ? !condition.negated : condition.op === '=');
}
