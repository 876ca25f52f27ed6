// Saved filters as Pipedrive's v1 OpenAPI describes `addFilter`: conditions
// `{ glue: 'and', conditions: [{ glue: 'and', conditions: [...] }, { glue: 'or', conditions: [...] }] }`,
// each condition `{ object, field_id, operator, value, extra_value }`, at most
// 16, operators IS NOT NULL, IS NULL, <=, >=, <, >, !=, =, LIKE '$%',
// LIKE '%$%', NOT LIKE '$%', dates as YYYY-MM-DD. A comparison with an empty
// field is not true (as in SQL): only IS NULL matches an empty field.
import type { Company, Person, PersonField } from './company.ts';

const OPERATORS = ['IS NOT NULL', 'IS NULL', '<=', '>=', '<', '>', '!=', '=', "LIKE '$%'", "LIKE '%$%'", "NOT LIKE '$%'"];
const NUMERIC = ['double', 'int', 'monetary'];
export const MAX_CONDITIONS = 16;

interface Condition {
  object: string;
  field_id: string | number;
  operator: string;
  value: unknown;
}

interface Group {
  glue: 'and' | 'or';
  conditions: Condition[];
}

/** The filter's groups, or why they are refused. */
export function parseConditions(company: Company, conditions: unknown): { groups: Group[] } | { error: string } {
  const top = conditions as { glue?: unknown; conditions?: unknown } | null;
  if (!top || top.glue !== 'and' || !Array.isArray(top.conditions) || top.conditions.length === 0 || top.conditions.length > 2) {
    return { error: 'conditions must be {"glue":"and","conditions":[{"glue":"and","conditions":[…]},{"glue":"or","conditions":[…]}]}' };
  }
  const groups: Group[] = [];
  let count = 0;
  for (const raw of top.conditions as Array<{ glue?: unknown; conditions?: unknown }>) {
    if ((raw.glue !== 'and' && raw.glue !== 'or') || !Array.isArray(raw.conditions)) return { error: 'each group needs a glue of and/or and a conditions array' };
    for (const each of raw.conditions as Condition[]) {
      count++;
      if (each.object !== 'person') return { error: `condition object ${JSON.stringify(each.object)} does not fit a people filter` };
      if (!OPERATORS.includes(each.operator)) return { error: `operator ${JSON.stringify(each.operator)} is not one of ${OPERATORS.join(', ')}` };
      const field = company.fields.get(Number(each.field_id));
      if (!field || !field.active_flag) return { error: `field_id ${JSON.stringify(each.field_id)} names no person field` };
      if (field.field_type === 'date' && !['IS NULL', 'IS NOT NULL'].includes(each.operator) && !/^\d{4}-\d{2}-\d{2}$/.test(String(each.value))) return { error: 'date values must be YYYY-MM-DD' };
    }
    groups.push({ glue: raw.glue, conditions: raw.conditions as Condition[] });
  }
  if (count > MAX_CONDITIONS) return { error: `a filter takes at most ${MAX_CONDITIONS} conditions` };
  return { groups };
}

function valueOf(person: Person, field: PersonField): unknown {
  if (field.key === 'name') return person.name;
  if (field.key === 'email') return person.emails.find((email) => email.primary)?.value ?? person.emails[0]?.value ?? null;
  const value = person.custom[field.key];
  return value !== null && typeof value === 'object' ? (value as { value?: unknown }).value : value;
}

function holds(person: Person, field: PersonField, condition: Condition): boolean {
  const value = valueOf(person, field);
  const isEmpty = value === null || value === undefined || value === '';
  if (condition.operator === 'IS NULL') return isEmpty;
  if (condition.operator === 'IS NOT NULL') return !isEmpty;
  if (isEmpty) return false;
  const numeric = NUMERIC.includes(field.field_type);
  const [a, b] = numeric ? [Number(value), Number(condition.value)] : [String(value), String(condition.value)];
  switch (condition.operator) {
    case '=': return a === b;
    case '!=': return a !== b;
    case '<': return a < b;
    case '>': return a > b;
    case '<=': return a <= b;
    case '>=': return a >= b;
    case "LIKE '$%'": return String(a).toLowerCase().startsWith(String(b).toLowerCase());
    case "NOT LIKE '$%'": return !String(a).toLowerCase().startsWith(String(b).toLowerCase());
    default: return String(a).toLowerCase().includes(String(b).toLowerCase());
  }
}

export function matches(company: Company, person: Person, groups: Group[]): boolean {
  return groups.every((group) => {
    if (group.conditions.length === 0) return true;
    const results = group.conditions.map((condition) => holds(person, company.fields.get(Number(condition.field_id))!, condition));
    return group.glue === 'and' ? results.every(Boolean) : results.some(Boolean);
  });
}
