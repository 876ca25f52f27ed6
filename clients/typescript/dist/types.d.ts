import type { components, operations } from './generated/openapi.ts';
type Schemas = components['schemas'];
/** The body of `POST /research`. */
export type ResearchRequest = operations['startResearch']['requestBody']['content']['application/json'];
/** The 202 reply of `POST /research`. */
export type Accepted = Schemas['Accepted'];
/** Any reply of `GET /research-status/{id}`. */
export type StatusReply = Schemas['StatusReply'];
export type RunningReply = Schemas['RunningReply'];
export type CompletedReply = Schemas['CompletedReply'];
export type FailedReply = Schemas['FailedReply'];
/** A completed reply's `data`: `prospect` and `company` are null when not found (docs/api.md#the-result). */
export type ResearchData = Schemas['ResearchData'];
export type Prospect = Schemas['Prospect'];
export type Company = Schemas['Company'];
export type DecisionMaker = Schemas['DecisionMaker'];
/** A completed reply's `_meta`: provenance, informational only. */
export type ReplyMeta = Schemas['ReplyMeta'];
/** Every error body: `{ error, message?, used?, limit? }`. */
export type ErrorBody = Schemas['ErrorBody'];
/** The error codes of the contract (docs/api.md#errors) and of its compatible extensions. */
export type ErrorCode = 'missing_api_key' | 'invalid_key' | 'missing_email' | 'invalid_email_format' | 'missing_key_id' | 'api_key_has_no_product' | 'credits_exhausted' | 'trial_limit_reached' | 'not_found' | 'invalid_request' | 'idempotency_key_reused' | 'payload_too_large' | 'internal_error' | (string & {});
export {};
