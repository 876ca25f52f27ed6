import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Orm } from '../db/orm.ts';
import { nextAttemptDelayMs, WEBHOOK_FAILURE_TYPES, type DeliveryOutcome } from '../domain/webhook-contract.ts';
import type { WebhookConfig } from '../integrations/webhooks/config.ts';
import { retryAfterMs } from '../integrations/webhooks/retry-after.ts';
import { postWebhook } from '../integrations/webhooks/webhook-poster.ts';
import { disableEndpoint, endDelivery, loadDeliveryToSend, recordAttempt, signedHeaders } from '../services/webhooks.ts';

export interface WebhookDeliveryDeps {
  orm: Orm;
  webhooks: WebhookConfig;
  clock: () => Date;
}

/** Answers worth another attempt (docs/webhooks.md#delivery): 408, 429, any 5xx; 3xx too, since redirects are not followed. */
function isRetryableStatus(statusCode: number): boolean {
  return statusCode === 408 || statusCode === 429 || statusCode >= 500 || (statusCode >= 300 && statusCode < 400);
}

export function createWebhookDeliveryActivities({ orm, webhooks, clock }: WebhookDeliveryDeps) {
  return {
    /**
     * One attempt of one delivery: signed now (a fresh timestamp every
     * attempt, with every valid secret), the address checked again, recorded
     * whatever happens. Throws a retryable failure for 408/429/5xx/no answer,
     * a final one for another 4xx or a private address; 410 disables the endpoint.
     * A retryable answer with `Retry-After` sets the next attempt's delay itself.
     */
    async attemptWebhookDelivery(deliveryId: string): Promise<DeliveryOutcome> {
      const em = orm.em.fork();
      const now = clock();
      const delivery = await loadDeliveryToSend(em, webhooks.secretKey, deliveryId, now);
      if (!delivery) return 'skipped'; // its endpoint (or account) was deleted meanwhile
      if (delivery.status === 'delivered') return 'delivered';
      if (delivery.status !== 'pending') return delivery.status;
      if (delivery.endpointStatus !== 'active') {
        await endDelivery(em, deliveryId, 'skipped', now, `endpoint ${delivery.endpointStatus}`);
        return 'skipped';
      }
      const outcome = await postWebhook(delivery.url, signedHeaders(delivery, now), delivery.payload, { allowedPrivateHosts: webhooks.allowedPrivateHosts });
      const statusCode = outcome.kind === 'answered' ? outcome.statusCode : null;
      const isSuccess = statusCode !== null && statusCode >= 200 && statusCode < 300;
      const error = outcome.kind === 'answered' ? null : outcome.reason;
      await recordAttempt(em, deliveryId, delivery.endpointId, { statusCode, error, durationMs: outcome.durationMs, isSuccess }, clock());
      if (isSuccess) return 'delivered';

      if (statusCode === 410) {
        await disableEndpoint(em, delivery.endpointId, 'gone', clock());
        throw ApplicationFailure.nonRetryable('the endpoint answered 410 Gone and is disabled', WEBHOOK_FAILURE_TYPES.final);
      }
      if (outcome.kind === 'refused') throw ApplicationFailure.nonRetryable(outcome.reason, WEBHOOK_FAILURE_TYPES.final);
      if (statusCode !== null && !isRetryableStatus(statusCode)) {
        throw ApplicationFailure.nonRetryable(`the endpoint answered ${statusCode}`, WEBHOOK_FAILURE_TYPES.final);
      }
      const reason = statusCode !== null ? `the endpoint answered ${statusCode}` : `no answer: ${error}`;
      const retryAfter = outcome.kind === 'answered' ? outcome.retryAfter : null;
      const askedMs = retryAfterMs(retryAfter, clock());
      if (askedMs === null) throw ApplicationFailure.retryable(reason, WEBHOOK_FAILURE_TYPES.retryable);
      // Retry-After (Standard Webhooks: honour it): the next attempt waits at least that long, within the schedule's bounds.
      const delayMs = nextAttemptDelayMs(Context.current().info.attempt, askedMs);
      throw ApplicationFailure.create({
        type: WEBHOOK_FAILURE_TYPES.retryable,
        message: `${reason} with Retry-After ${retryAfter}; next attempt in ${Math.round(delayMs / 1000)} s`,
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
