// The shapes of HubSpot's batch answers, for the stand-in's batch endpoints
// (sandbox/hubspot/server.ts). From HubSpot's OpenAPI files
// (HubSpot/HubSpot-public-api-spec-collection):
// - PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json: batch/read and
//   batch/update answer 200 `BatchResponseSimplePublicObject` or 207
//   `BatchResponseSimplePublicObjectWithErrors` (`errors[]` of `StandardError`:
//   status, category, message, context, errors, links).
// - PublicApiSpecs/CRM/Notes/Rollouts/424/v3/notes.json: batch/create answers
//   201 or 207; each input has `properties`, `associations` and an optional
//   `objectWriteTraceId`, which the created object carries back.
// - PublicApiSpecs/CRM/Associations/Rollouts/130902/v4/associations.json:
//   POST /crm/v4/associations/{from}/{to}/batch/read, 200 or 207.
// - PublicApiSpecs/CRM/Properties/Rollouts/145899/v3/properties.json:
//   batch/create answers 201 or 207.
// How errors are told apart: developers.hubspot.com/docs/api-reference/latest/error-handling
// ("Multi-status errors": a batch create answers 207 with the inputs that
// failed only when every input carries a unique `objectWriteTraceId`; without
// one, any invalid input fails the whole request) and
// developers.hubspot.com/changelog/simplifying-batch-update-response-codes-for-crm-v3-apis
// (batch update: 200 when every input succeeded, else 207). A failed update is
// named by `context.ids`, a failed create by `context.objectWriteTraceId`.
import { randomUUID } from 'node:crypto';

/** HubSpot: at most 100 inputs per batch call. */
export const MAX_BATCH_INPUTS = 100;

/** One input's error in a 207 (`StandardError`). */
export function batchError(category: string, message: string, context: Record<string, string[]>, errors: Array<{ message: string; code?: string; in?: string }> = []) {
  return { status: 'error', id: randomUUID(), category, message, context, errors, links: {} };
}

/** A batch answer: `ok` (200 or 201) when nothing failed, else 207 with the errors beside the results. */
export function batchAnswer(results: unknown[], errors: unknown[], startedAt: string, ok: 200 | 201): { status: number; body: unknown } {
  const completedAt = new Date().toISOString();
  if (errors.length === 0) return { status: ok, body: { status: 'COMPLETE', results, startedAt, completedAt } };
  return { status: 207, body: { status: 'COMPLETE', results, numErrors: errors.length, errors, startedAt, completedAt } };
}

/** The object type names the v4 associations API takes for contacts and notes (name, singular, or type id). */
export const ASSOCIATION_TYPE_NAMES = { contacts: ['contacts', 'contact', '0-1'], notes: ['notes', 'note', '0-46'] } as const;

export const objectTypeOf = (name: string): 'contacts' | 'notes' | null =>
  (ASSOCIATION_TYPE_NAMES.contacts as readonly string[]).includes(name.toLowerCase())
    ? 'contacts'
    : (ASSOCIATION_TYPE_NAMES.notes as readonly string[]).includes(name.toLowerCase())
      ? 'notes'
      : null;
