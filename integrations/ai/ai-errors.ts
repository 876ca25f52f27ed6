/** Why the model step could not produce a usable answer. */
export const AI_FAILURE_REASONS = [
  'unreachable', // connection refused, reset or DNS failure after the SDK's retries
  'timeout', // no answer within AI_TIMEOUT_MS, after retries
  'rate_limited', // 429 after retries
  'quota_exhausted', // 429 `insufficient_quota`: a billing state, not a rate; never retried
  'server_error', // 5xx after retries
  'rejected_request', // 4xx: bad key, unknown model, schema refused — retrying cannot help
  'invalid_answer', // answered, but not in the required shape even after one corrective retry
] as const;
export type AiFailureReason = (typeof AI_FAILURE_REASONS)[number];

/**
 * The one error the AI step rejects with. Identified by `name` (not by class),
 * so that it survives serialisation into a Temporal failure; the pipeline then
 * completes with AI fields null (docs/api.md#refunds).
 */
export class AiUnavailable extends Error {
  readonly reason: AiFailureReason;

  constructor(reason: AiFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AiUnavailable';
    this.reason = reason;
  }
}

export function isAiUnavailable(error: unknown): error is AiUnavailable {
  return error instanceof Error && error.name === 'AiUnavailable';
}
