export { ProspectEnrichment, type ClientOptions, type ResearchOptions, type ResearchManyItem, type ResearchManyOptions, type ResearchManyResult } from './client.ts';
export { CreditsError, ProspectApiError, ProspectNetworkError, ResearchFailedError, ResearchTimeoutError } from './errors.ts';
export { verifyWebhook, WebhookVerificationError, type ResearchCompletedEvent, type ResearchFailedEvent, type WebhookEvent, type WebhookTestEvent } from './webhooks.ts';
export type { Accepted, Company, CompletedReply, DecisionMaker, ErrorBody, ErrorCode, FailedReply, Prospect, ReplyMeta, ResearchData, ResearchRequest, RunningReply, StatusReply, } from './types.ts';
export type { components, paths, operations, webhooks } from './generated/openapi.ts';
