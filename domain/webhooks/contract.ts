// Shared by the delivery workflow, its activities, its worker and the dispatcher.

export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';

/** Failure types of the delivery activity (explicit strings, docs/architecture.md#activity-option-profiles-and-failure-types). */
export const WEBHOOK_FAILURE_TYPES = {
  /** 408, 429, 5xx, 3xx (redirects are not followed), no answer: retried with backoff. */
  retryable: 'WebhookAttemptFailed',
  /** Another 4xx, 410, or a private address: never retried. */
  final: 'WebhookRefused',
} as const;

export type DeliveryOutcome = 'delivered' | 'failed' | 'skipped';

/** The delivery workflow's second argument (absent in workflows started before the dispatcher sent first attempts). */
export interface WebhookDeliveryOptions {
  /** The dispatcher made the first attempt and it failed; `retryAfterMs` is what the endpoint's Retry-After asked for. */
  firstAttempt?: { retryAfterMs: number | null };
}

/**
 * The retry schedule of a delivery's attempts (docs/webhooks.md#delivery): 10 s,
 * 20 s, 40 s … apart, never more than an hour, for about a day in all. The
 * workflow's retry policy is written from these numbers.
 */
export const WEBHOOK_RETRY = {
  initialIntervalMs: 10_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 60 * 60_000,
  scheduleToCloseMs: 24 * 60 * 60_000,
} as const;

/**
 * How long to wait after failed attempt `attempt` (1 for the first): the
 * schedule's interval, or longer when the endpoint asked for longer with
 * `Retry-After` (Standard Webhooks asks senders to honour it), but never more
 * than the schedule's hour: an endpoint cannot push its retries past the
 * delivery's day, nor pull them closer than the schedule.
 */
export function nextAttemptDelayMs(attempt: number, retryAfterMs: number | null): number {
  const scheduled = Math.min(WEBHOOK_RETRY.initialIntervalMs * WEBHOOK_RETRY.backoffCoefficient ** Math.max(0, attempt - 1), WEBHOOK_RETRY.maximumIntervalMs);
  return Math.min(Math.max(scheduled, retryAfterMs ?? 0), WEBHOOK_RETRY.maximumIntervalMs);
}

/**
 * Deliveries run on their own task queue beside the research queue, so that
 * a slow receiver never takes a research worker's slot, nor a research backlog a delivery's.
 */
export function webhookTaskQueue(researchTaskQueue: string): string {
  return `${researchTaskQueue}-webhooks`;
}

/** One workflow per delivery run: starting it twice is a no-op (the dispatcher may). */
export function webhookDeliveryWorkflowId(deliveryId: string, run: number): string {
  return run === 0 ? `webhook-${deliveryId}` : `webhook-${deliveryId}-resend-${run}`;
}
