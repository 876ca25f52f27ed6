// Shared by the delivery workflow, its activities, its worker and the dispatcher.

export const WEBHOOK_DELIVERY_WORKFLOW_TYPE = 'webhookDeliveryWorkflow';

/** Failure types of the delivery activity (explicit strings, STYLE.md habit 3). */
export const WEBHOOK_FAILURE_TYPES = {
  /** 408, 429, 5xx, 3xx (redirects are not followed), no answer: retried with backoff. */
  retryable: 'WebhookAttemptFailed',
  /** Another 4xx, 410, or a private address: never retried. */
  final: 'WebhookRefused',
} as const;

export type DeliveryOutcome = 'delivered' | 'failed' | 'skipped';

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
