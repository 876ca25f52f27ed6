import { AppError } from '../domain/errors.ts';

/**
 * The path (`name`, `keyFeatures.2`) of the first string in a parsed JSON body
 * that holds a NUL character, or null. PostgreSQL cannot store U+0000 in text
 * or jsonb and fails the whole statement; found here, it is the sender's 400.
 */
export function findNulField(value: unknown, path: string[] = []): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path.join('.') || '_' : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...path, key.replaceAll('\u0000', '\\u0000')].join('.');
    const found = findNulField(item, [...path, key]);
    if (found !== null) return found;
  }
  return null;
}

/** 400 `invalid_request` naming the field when any string of `body` holds a NUL character. */
export function refuseNulCharacters(body: unknown): void {
  const field = findNulField(body);
  if (field === null) return;
  throw new AppError('invalid_request', `${field}: contains a NUL character (\\u0000), which is not text we can store. Remove it and send again.`, {
    field,
    fields: { [field]: 'Contains a NUL character (\\u0000). Remove it.' },
  });
}
