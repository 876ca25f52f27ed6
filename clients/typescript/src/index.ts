export { ProspectEnrichment, type ClientOptions, type ResearchOptions, type ResearchManyItem, type ResearchManyOptions, type ResearchManyResult } from './client.ts';
export { CreditsError, ProspectApiError, ProspectNetworkError, ResearchFailedError, ResearchTimeoutError } from './errors.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookEvent } from './webhooks.ts';
export type { Accepted, CompletedReply, ErrorBody, ErrorCode, FailedReply, ResearchRequest, RunningReply, StatusReply } from './types.ts';
export type { paths, operations } from './generated/openapi.ts';
