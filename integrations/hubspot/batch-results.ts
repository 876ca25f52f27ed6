// Each input's outcome of a HubSpot batch call (docs/crm.md#batch-writes).
// A batch answers 200/201 when every input succeeded, else 207 with the
// results beside one error per failed input (developers.hubspot.com/docs/api-reference/latest/error-handling,
// "Multi-status errors"; PublicApiSpecs `BatchResponseSimplePublicObjectWithErrors`,
// `StandardError`). An update's failed input is named by `context.ids`, a
// create's by `context.objectWriteTraceId` (sent with every input), a read's
// missing ids by `context.ids`. Every input ends either done or refused with
// a reason: successes + refusals = inputs.
import type { BatchOutcomes } from '../crm/adapter.ts';

export interface BatchErrorBody {
  category?: string;
  message?: string;
  context?: Record<string, string[] | undefined>;
  errors?: Array<{ message?: string }>;
}

export interface BatchReply<R> {
  results?: R[];
  errors?: BatchErrorBody[];
}

/** Inputs HubSpot did, with what it returned for them, and those it refused, with its reason (the adapter's shape). */
export type { BatchOutcomes } from '../crm/adapter.ts';

/** A refusal as one line: its category, message, and the details HubSpot listed. */
export function refusalText(error: BatchErrorBody): string {
  const details = (error.errors ?? []).map((each) => each.message).filter((text): text is string => Boolean(text) && text !== error.message);
  return [error.category, error.message, ...details].filter(Boolean).join(': ').slice(0, 500) || 'HubSpot refused it without a reason';
}

/**
 * Matches a batch reply to its inputs' keys. Results carry their key
 * (`keyOfResult`: the record id of an update, the objectWriteTraceId of a
 * create); a result without one takes the next input not yet matched, in
 * order, as HubSpot answers a create in input order. Errors name their
 * inputs under `context[contextKey]`; an input left with neither result nor
 * error is refused with the reply's unattributed errors, if any.
 */
export function batchOutcomes<R>(keys: readonly string[], reply: BatchReply<R>, keyOfResult: (result: R) => string | undefined, contextKey: string): BatchOutcomes<R> {
  const done = new Map<string, R>();
  const refused = new Map<string, string>();
  const unattributed: string[] = [];
  for (const error of reply.errors ?? []) {
    const named = (error.context?.[contextKey] ?? []).filter((key) => keys.includes(key));
    if (named.length === 0) unattributed.push(refusalText(error));
    for (const key of named) refused.set(key, refusalText(error));
  }
  const keyless: R[] = [];
  for (const result of reply.results ?? []) {
    const key = keyOfResult(result);
    if (key !== undefined && keys.includes(key)) done.set(key, result);
    else keyless.push(result);
  }
  for (const key of keys) {
    if (done.has(key) || refused.has(key)) continue;
    const result = keyless.shift();
    if (result !== undefined) done.set(key, result);
    else refused.set(key, unattributed.join('; ') || 'HubSpot answered without a result for it');
  }
  return { done, refused };
}

/** Splits inputs into HubSpot's batches (at most 100 inputs a call). */
export function inBatches<T>(items: readonly T[], size = 100): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}
