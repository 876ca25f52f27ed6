// Checks a JSON value against a schema of /openapi.json: the parts of JSON Schema
// the document uses (type, const, enum, properties, required, additionalProperties,
// items, anyOf, oneOf, local $ref). Returns what does not match, empty when it all does.

type Schema = Record<string, unknown>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

const isOfType = (value: unknown, type: string) => typeOf(value) === type || (type === 'number' && typeOf(value) === 'integer');

export function schemaMismatches(document: Schema, schema: Schema, value: unknown, at = '$'): string[] {
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.replace(/^#\//, '').split('/').reduce<unknown>((node, part) => (node as Schema)?.[part], document);
    if (!target) return [`${at}: unresolvable ${schema.$ref}`];
    return schemaMismatches(document, target as Schema, value, at);
  }
  const problems: string[] = [];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => isOfType(value, type))) return [`${at}: ${typeOf(value)}, not ${types.join(' or ')}`];
  }
  if ('const' in schema && value !== schema.const) problems.push(`${at}: ${JSON.stringify(value)}, not ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) problems.push(`${at}: ${JSON.stringify(value)} is none of ${JSON.stringify(schema.enum)}`);
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(schema[key])) continue;
    const matching = (schema[key] as Schema[]).filter((part) => schemaMismatches(document, part, value, at).length === 0).length;
    if (matching === 0 || (key === 'oneOf' && matching > 1)) problems.push(`${at}: matches ${matching} of ${key}`);
  }
  if (typeOf(value) === 'array' && schema.items) {
    (value as unknown[]).forEach((item, index) => problems.push(...schemaMismatches(document, schema.items as Schema, item, `${at}[${index}]`)));
  }
  if (typeOf(value) === 'object') {
    const record = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in record)) problems.push(`${at}.${name}: missing`);
    for (const [name, each] of Object.entries(record)) {
      if (properties[name]) problems.push(...schemaMismatches(document, properties[name], each, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}.${name}: not in the schema`);
    }
  }
  return problems;
}
