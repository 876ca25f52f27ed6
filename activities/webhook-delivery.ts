import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../db/orm.ts';
import { nextAttemptDelayMs, WEBHOOK_FAILURE_TYPES, type DeliveryOutcome } from '../domain/webhooks/contract.ts';
import type { WebhookConfig } from '../integrations/webhooks/config.ts';
import { attemptDelivery } from '../services/webhooks/attempt.ts';
import { endDelivery } from '../services/webhooks/webhooks.ts';

export interface WebhookDeliveryDeps {
  orm: Orm;
  webhooks: WebhookConfig;
  clock: () => Date;
}

export function createWebhookDeliveryActivities({ orm, webhooks, clock }: WebhookDeliveryDeps) {
  return {
    /**
     * One attempt of one delivery (services/webhooks/attempt.ts). Throws a
     * retryable failure for 408/429/5xx/no answer, a final one for another
     * 4xx, a 410 or a private address. A retryable answer with `Retry-After`
     * sets the next attempt's delay itself. `attemptsBefore`: attempts made
     * before this workflow's (the dispatcher's first), for that delay.
     */
    async attemptWebhookDelivery(deliveryId: string, attemptsBefore = 0): Promise<DeliveryOutcome> {
      const result = await attemptDelivery(orm.em.fork(), webhooks, deliveryId, clock);
      if (result.kind === 'ended') return result.outcome;
      if (result.kind === 'final') throw ApplicationFailure.nonRetryable(result.reason, WEBHOOK_FAILURE_TYPES.final);
      if (result.retryAfterMs === null) throw ApplicationFailure.retryable(result.reason, WEBHOOK_FAILURE_TYPES.retryable);
      // Retry-After (Standard Webhooks: honour it): the next attempt waits at least that long, within the schedule's bounds.
      const delayMs = nextAttemptDelayMs(Context.current().info.attempt + attemptsBefore, result.retryAfterMs);
      throw ApplicationFailure.create({
        type: WEBHOOK_FAILURE_TYPES.retryable,
        message: `${result.reason} with Retry-After ${result.retryAfter}; next attempt in ${Math.round(delayMs / 1000)} s`,
        nextRetryDelay: delayMs,
      });
    },

    /** The delivery will not be tried again (its retries ran out, or a final answer). */
    async endWebhookDelivery(deliveryId: string): Promise<void> {
      await endDelivery(orm.em.fork(), deliveryId, 'failed', clock());
    },
  };
}

export type WebhookDeliveryActivities = ReturnType<typeof createWebhookDeliveryActivities>;
