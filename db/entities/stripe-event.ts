import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A Stripe webhook event that has been applied. Its row is written in the
 * transaction of the event's effect, so a retried or replayed delivery finds it
 * and changes nothing (docs/billing.md#how-plans-and-credits-change).
 */
export const StripeEvent = defineEntity({
  name: 'StripeEvent',
  tableName: 'stripe_event',
  properties: {
    /** Stripe's event id (`evt_…`). */
    id: p.string().primary(),
    type: p.string(),
    /** The account the event was applied to; null when it concerned none of ours. Kept as a plain id: billing records outlive accounts. */
    accountId: p.integer().nullable(),
    receivedAt: p.datetime().onCreate(() => new Date()),
  },
});

export type IStripeEvent = InferEntity<typeof StripeEvent>;
