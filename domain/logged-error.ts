// An error as a log line shows it. Pure (no Node imports): workflows log
// through it too, where an Error object would reach the log as `{}` or as a
// bare `String(error)` without its cause.

/** Causes followed at most; a longer chain (or a cycle) ends in `"…"`. */
const MAX_DEPTH = 8;

const isErrorLike = (value: unknown): value is Error & Record<string, unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';

/**
 * An error's name, message, own fields (a Temporal failure's `type`,
 * `nonRetryable`, `activityType` …) and the chain of its causes, as plain
 * data; the stack when asked. Anything that is not an error comes back as it is.
 */
export function loggedError(value: unknown, options: { stack?: boolean } = {}, depth = 0): unknown {
  if (!isErrorLike(value)) return value;
  if (depth >= MAX_DEPTH) return '…';
  const out: Record<string, unknown> = { name: typeof value.name === 'string' && value.name ? value.name : 'Error', message: value.message };
  for (const key of Object.keys(value)) {
    if (key === 'name' || key === 'message' || key === 'stack' || key === 'cause') continue;
    const field = value[key];
    out[key] = isErrorLike(field) ? loggedError(field, options, depth + 1) : field;
  }
  if (Array.isArray(value.errors)) out.errors = value.errors.map((each: unknown) => loggedError(each, options, depth + 1));
  if (options.stack && typeof value.stack === 'string') out.stack = value.stack;
  if (value.cause !== undefined) out.cause = loggedError(value.cause, options, depth + 1);
  return out;
}
