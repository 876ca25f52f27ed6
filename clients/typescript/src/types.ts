import type { operations } from './generated/openapi.ts';

type StartResearch = operations['startResearch'];
type GetResearchStatus = operations['getResearchStatus'];

/** The body of `POST /research`. */
export type ResearchRequest = StartResearch['requestBody']['content']['application/json'];
/** The 202 reply of `POST /research`. */
export type Accepted = StartResearch['responses'][202]['content']['application/json'];
/** Any reply of `GET /research-status/{id}`. */
export type StatusReply = GetResearchStatus['responses'][200]['content']['application/json'];
export type CompletedReply = Extract<StatusReply, { status: 'completed' }>;
export type FailedReply = Extract<StatusReply, { status: 'failed' }>;
export type RunningReply = Extract<StatusReply, { status: 'queued' | 'processing' }>;
/** Every error body: `{ error, message?, used?, limit? }`. */
export type ErrorBody = StartResearch['responses'][400]['content']['application/json'];

/** The error codes of the spec (§7.3) and of its compatible extensions. */
export type ErrorCode =
  | 'missing_api_key'
  | 'invalid_key'
  | 'missing_email'
  | 'invalid_email_format'
  | 'missing_key_id'
  | 'api_key_has_no_product'
  | 'credits_exhausted'
  | 'trial_limit_reached'
  | 'not_found'
  | 'invalid_request'
  | 'idempotency_key_reused'
  | 'payload_too_large'
  | 'internal_error'
  | (string & {});
