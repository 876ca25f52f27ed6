import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryOutcome } from '../../domain/webhooks/contract.ts';
import type { WebhookConfig } from '../../integrations/webhooks/config.ts';
import { retryAfterMs } from '../../integrations/webhooks/retry-after.ts';
import { inSpan, isTracingOn } from '../../lib/tracing.ts';
import { postWebhook } from '../../integrations/webhooks/webhook-poster.ts';
import { disableEndpoint, endDelivery, loadDeliveryToSend, recordAttempt, recordDeliveredFirstAttempt, signedHeaders, type DeliveryToSend } from './webhooks.ts';

/** What one attempt came to: ended (delivered, or nothing left to send), worth another attempt, or refused for good. */
export type AttemptResult =
  | { kind: 'ended'; outcome: DeliveryOutcome }
  | { kind: 'retry'; reason: string; retryAfter: string | null; retryAfterMs: number | null }
  | { kind: 'final'; reason: string };

/** Answers worth another attempt (docs/webhooks.md#delivery): 408, 429, any 5xx; 3xx too, since redirects are not followed. */
function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 429 || statusCode >= 500 || (statusCode >= 300 && statusCode < 400);
}

/**
 * One attempt of one delivery, as the dispatcher sends the first and the
 * delivery workflow's activity every later one: signed now (a fresh timestamp
 * every attempt, with every valid secret), the address checked again,
 * recorded whatever happens. A 410 disables the endpoint.
 */
export async function attemptDelivery(em: EntityManager, webhooks: WebhookConfig, deliveryId: string, clock: () => Date): Promise<AttemptResult> {
  const delivery = await loadDeliveryToSend(em, webhooks.secretKey, deliveryId, clock());
  if (!delivery) return { kind: 'ended', outcome: 'skipped' }; // its endpoint (or account) was deleted meanwhile
  return attemptLoadedDelivery(em, webhooks, delivery, clock);
}

/**
 * The attempt of a delivery already read (the dispatcher's claim returns
 * it). `isFirstAttempt`: a success is recorded and handed on in one
 * statement, as no workflow follows it.
 */
export async function attemptLoadedDelivery(
  em: EntityManager,
  webhooks: WebhookConfig,
  delivery: DeliveryToSend,
  clock: () => Date,
  options: { isFirstAttempt?: boolean } = {},
): Promise<AttemptResult> {
  if (!isTracingOn()) return attemptOnce(em, webhooks, delivery, clock, options);
  // The attempt joins the trace of the job it reports (a test event has none: a trace of its own).
  const [job]: Array<{ research_id: string | null; trace_context: string | null }> = await em.execute(
    'select d.research_id, j.trace_context from webhook_delivery d left join research_job j on j.id = d.research_id where d.id = ?',
    [delivery.id],
  );
  const carrier = job?.trace_context ? { traceparent: job.trace_context } : undefined;
  const attributes = { research_id: job?.research_id ?? undefined, 'account.id': delivery.accountId, 'webhook.delivery_id': delivery.id, 'webhook.endpoint_id': delivery.endpointId };
  return inSpan('webhook delivery attempt', attributes, async (span) => {
    const result = await attemptOnce(em, webhooks, delivery, clock, options);
    span.setAttributes({ 'webhook.result': result.kind });
    if (result.kind !== 'ended') span.setError(result.reason);
    return result;
  }, { kind: 'client', carrier });
}

async function attemptOnce(
  em: EntityManager,
  webhooks: WebhookConfig,
  delivery: DeliveryToSend,
  clock: () => Date,
  options: { isFirstAttempt?: boolean },
): Promise<AttemptResult> {
  const now = clock();
  const deliveryId = delivery.id;
  if (delivery.status === 'delivered') return { kind: 'ended', outcome: 'delivered' };
  if (delivery.status !== 'pending') return { kind: 'ended', outcome: delivery.status };
  if (delivery.endpointStatus !== 'active') {
    await endDelivery(em, deliveryId, 'skipped', now, `endpoint ${delivery.endpointStatus}`);
    return { kind: 'ended', outcome: 'skipped' };
  }
  const outcome = await postWebhook(delivery.url, signedHeaders(delivery, now), delivery.payload, { allowedPrivateHosts: webhooks.allowedPrivateHosts });
  const statusCode = outcome.kind === 'answered' ? outcome.statusCode : null;
  const isSuccess = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const error = outcome.kind === 'answered' ? null : outcome.reason;
  if (isSuccess && options.isFirstAttempt) {
    await recordDeliveredFirstAttempt(em, deliveryId, delivery.endpointId, { statusCode, durationMs: outcome.durationMs }, clock());
    return { kind: 'ended', outcome: 'delivered' };
  }
  await recordAttempt(em, deliveryId, delivery.endpointId, { statusCode, error, durationMs: outcome.durationMs, isSuccess }, clock());
  if (isSuccess) return { kind: 'ended', outcome: 'delivered' };

  if (statusCode === 410) {
    await disableEndpoint(em, delivery.endpointId, 'gone', clock());
    return { kind: 'final', reason: 'the endpoint answered 410 Gone and is disabled' };
  }
  if (outcome.kind === 'refused') return { kind: 'final', reason: outcome.reason };
  if (statusCode !== null && !isRetryableStatus(statusCode)) return { kind: 'final', reason: `the endpoint answered ${statusCode}` };
  const retryAfter = outcome.kind === 'answered' ? outcome.retryAfter : null;
  return {
    kind: 'retry',
    reason: statusCode !== null ? `the endpoint answered ${statusCode}` : `no answer: ${error}`,
    retryAfter,
    retryAfterMs: retryAfterMs(retryAfter, clock()),
  };
}
