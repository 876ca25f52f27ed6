import type { JsonSchema } from './chat-request.ts';

export interface FieldWriter {
  /** Text for the string at `index` of the property `field` (0 for a single value); null when unknown. */
  text(field: string, index: number): string | null;
  /** How many items a list of free size should get, from the facts; clamped to the schema. */
  count(field: string): number;
}

export type WrongSize = 'extra' | 'missing' | null;

/**
 * Builds a value that follows the JSON schema exactly: every property, the
 * list sizes from minItems/maxItems. The shape comes only from the schema, so
 * nothing in the prompt's data can change it. `wrongSize` breaks the fixed
 * sizes on purpose (a fault mode) to exercise the client's repair.
 */
export function fillSchema(schema: JsonSchema, writer: FieldWriter, wrongSize: WrongSize = null, field = 'answer', index = 0): unknown {
  if (schema.anyOf?.length) {
    const option = schema.anyOf.find((candidate) => candidate.type !== 'null') ?? schema.anyOf[0];
    return fillSchema(option, writer, wrongSize, field, index);
  }
  if (schema.enum?.length) return schema.enum[0];
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const isNullable = types.includes('null');
  if (types.includes('object')) {
    const entries = Object.entries(schema.properties ?? {}).map(([key, child]) => [key, fillSchema(child, writer, wrongSize, key, 0)]);
    return Object.fromEntries(entries);
  }
  if (types.includes('array')) {
    const size = listSize(schema, writer.count(field), wrongSize);
    return Array.from({ length: size }, (_, itemIndex) => fillSchema(schema.items ?? { type: 'string' }, writer, wrongSize, field, itemIndex));
  }
  if (types.includes('string')) {
    const text = writer.text(field, index);
    if (text !== null) return text;
    return isNullable ? null : `${field} ${index + 1}`;
  }
  if (types.includes('integer') || types.includes('number')) return 0;
  if (types.includes('boolean')) return false;
  return null;
}

function listSize(schema: JsonSchema, wanted: number, wrongSize: WrongSize): number {
  const min = schema.minItems ?? 0;
  const max = schema.maxItems ?? Math.max(min, 10);
  if (min === max) {
    if (wrongSize === 'extra') return min + 1;
    if (wrongSize === 'missing' && min > 0) return min - 1;
    return min;
  }
  return Math.min(max, Math.max(min, wanted));
}
