import { proxyActivities, sleep, type ActivityOptions } from '@temporalio/workflow';
import type { WebhookDeliveryActivities } from '../activities/webhook-delivery.ts';
import { nextAttemptDelayMs, WEBHOOK_FAILURE_TYPES, WEBHOOK_RETRY, type DeliveryOutcome, type WebhookDeliveryOptions } from '../domain/webhooks/contract.ts';

/**
 * Each attempt has 15 s for its answer (inside the activity) and 30 s in all;
 * failed attempts are retried 10 s, 20 s, 40 s … apart, at most an hour, for
 * about a day (schedule-to-close), as Standard Webhooks senders commonly do.
 * An attempt answered with `Retry-After` sets its own next delay within these
 * bounds (activities/webhook-delivery.ts).
 */
const attempt: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: WEBHOOK_RETRY.scheduleToCloseMs,
  retry: {
    initialInterval: WEBHOOK_RETRY.initialIntervalMs,
    backoffCoefficient: WEBHOOK_RETRY.backoffCoefficient,
    maximumInterval: WEBHOOK_RETRY.maximumIntervalMs,
    nonRetryableErrorTypes: [WEBHOOK_FAILURE_TYPES.final],
  },
};
/** After the dispatcher's first attempt: the same schedule, one step on (20 s, 40 s …). */
const afterFirstAttempt: ActivityOptions = {
  ...attempt,
  retry: { ...attempt.retry, initialInterval: Math.min(WEBHOOK_RETRY.initialIntervalMs * WEBHOOK_RETRY.backoffCoefficient, WEBHOOK_RETRY.maximumIntervalMs) },
};
const bookkeeping: ActivityOptions = { startToCloseTimeout: '30 seconds', retry: { maximumInterval: '1 minute' } };

const { attemptWebhookDelivery } = proxyActivities<WebhookDeliveryActivities>(attempt);
const { attemptWebhookDelivery: attemptAfterFirst } = proxyActivities<WebhookDeliveryActivities>(afterFirstAttempt);
const { endWebhookDelivery } = proxyActivities<WebhookDeliveryActivities>(bookkeeping);

/**
 * One delivery of one event to one endpoint (docs/architecture.md#completion-webhooks).
 * Started by the dispatcher after the job has ended: the job never waits on it.
 * Where the dispatcher made the first attempt itself (`firstAttempt`), the
 * workflow holds the retries: it waits the schedule's first interval (or the
 * endpoint's Retry-After) and goes on from the second attempt.
 */
export async function webhookDeliveryWorkflow(deliveryId: string, options: WebhookDeliveryOptions = {}): Promise<DeliveryOutcome> {
  try {
    if (!options.firstAttempt) return await attemptWebhookDelivery(deliveryId);
    await sleep(nextAttemptDelayMs(1, options.firstAttempt.retryAfterMs));
    return await attemptAfterFirst(deliveryId, 1);
  } catch {
    await endWebhookDelivery(deliveryId);
    return 'failed';
  }
}
