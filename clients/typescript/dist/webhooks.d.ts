import type { components } from './generated/openapi.ts';
/** `research.completed`: `data` is the job's completed status reply (the `webhooks` of /openapi.json). */
export type ResearchCompletedEvent = components['schemas']['ResearchCompletedEvent'];
/** `research.failed`: `data` is the job's failed status reply. */
export type ResearchFailedEvent = components['schemas']['ResearchFailedEvent'];
/** `webhook.test`: sent by "Send test event" on the Webhooks page. */
export type WebhookTestEvent = components['schemas']['WebhookTestEvent'];
/** What a completion webhook carries; narrow on `type`. */
export type WebhookEvent = components['schemas']['WebhookEvent'];
export declare class WebhookVerificationError extends Error {
    constructor(message: string);
}
type HeaderSource = Headers | Record<string, string | string[] | undefined>;
/**
 * Verifies a delivery per Standard Webhooks: HMAC-SHA256 over
 * `webhook-id.webhook-timestamp.body` with the endpoint's `whsec_…` secret,
 * any of the space-separated `v1,…` signatures (two during a rotation),
 * timestamp within 5 minutes. Pass the raw body, exactly as received.
 * Returns the parsed event; throws WebhookVerificationError.
 */
export declare function verifyWebhook(headers: HeaderSource, body: string | Uint8Array, secret: string, options?: {
    now?: Date;
}): Promise<WebhookEvent>;
export {};
