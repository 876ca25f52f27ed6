export { ProspectEnrichment } from "./client.js";
export { CreditsError, ProspectApiError, ProspectNetworkError, ResearchFailedError, ResearchTimeoutError } from "./errors.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";
