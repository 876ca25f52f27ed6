// The test clock: moving it does what Stripe does at each moment passed
// (docs.stripe.com/billing/testing/test-clocks): periods end and renew with an
// invoice (`billing_reason: subscription_cycle`), schedule phases start,
// cancellations take effect, failed renewals are charged again and the
// subscription is cancelled after the last attempt (a custom retry schedule,
// docs.stripe.com/billing/revenue-recovery/smart-retries), sessions and pending
// updates expire.

import { StripeApiError } from './errors.ts';
import type { InvoiceRecord, SubscriptionRecord } from './records.ts';
import { periodAfter } from './periods.ts';
import { changedFields, type StripeWorld } from './world.ts';

const DAY_S = 24 * 3600;
/** Days after each failed attempt of a renewal before the next one; after the last, the subscription is cancelled. */
export const RENEWAL_RETRY_DAYS = [3, 5, 7] as const;

/**
 * Moves the clock to `to` (Unix seconds), doing on the way what Stripe does
 * at each moment passed, in time order: schedule phases start, subscriptions
 * cancelled at the period's end end, the others renew and are charged.
 */
export function advanceClock(world: StripeWorld, to: number): void {
  if (to < world.now()) throw new StripeApiError(400, 'invalid_request_error', 'The clock only moves forward.', { param: 'to' });
  for (;;) {
    const periodEnd = [...world.subscriptions.values()]
      .filter((sub) => isLive(sub) && sub.item.periodEnd <= to)
      .sort((a, b) => a.item.periodEnd - b.item.periodEnd)[0];
    const retry = [...world.invoices.values()]
      .filter((invoice) => invoice.status === 'open' && invoice.nextPaymentAttempt !== null && invoice.nextPaymentAttempt <= to)
      .sort((a, b) => a.nextPaymentAttempt! - b.nextPaymentAttempt!)[0];
    if (!periodEnd && !retry) break;
    // Whichever comes first, so events go out in the order Stripe would send them.
    if (retry && (!periodEnd || retry.nextPaymentAttempt! < periodEnd.item.periodEnd)) {
      if (retry.nextPaymentAttempt! > world.now()) world.setNow(retry.nextPaymentAttempt!);
      retryPayment(world, retry);
    } else {
      if (periodEnd!.item.periodEnd > world.now()) world.setNow(periodEnd!.item.periodEnd);
      periodEnds(world, periodEnd!);
    }
  }
  world.setNow(to);
  for (const session of world.sessions.values()) {
    if (session.status === 'open' && session.expiresAt <= to) {
      session.status = 'expired';
      world.emit('checkout.session.expired', world.sessionJson(session));
    }
  }
  for (const sub of world.subscriptions.values()) {
    if (sub.pendingUpdate && sub.pendingUpdate.expiresAt <= to) {
      const before = world.subscriptionJson(sub);
      sub.pendingUpdate = null;
      world.emit('customer.subscription.pending_update_expired', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)));
    }
  }
}

function periodEnds(world: StripeWorld, sub: SubscriptionRecord): void {
  const end = sub.item.periodEnd;
  if (sub.cancelAtPeriodEnd) {
    sub.status = 'canceled';
    sub.endedAt = end;
    world.emit('customer.subscription.deleted', world.subscriptionJson(sub), undefined, end);
    return;
  }
  const before = world.subscriptionJson(sub);
  const schedule = sub.schedule ? world.schedule(sub.schedule) : null;
  if (schedule) {
    const phase = schedule.phases.find((candidate) => candidate.startDate <= end && end < candidate.endDate);
    if (phase) {
      sub.item.price = phase.items[0]!.price;
      sub.item.quantity = phase.items[0]!.quantity;
    } else if (schedule.endBehavior === 'cancel') {
      schedule.status = 'completed';
      sub.schedule = null;
      sub.status = 'canceled';
      sub.endedAt = end;
      world.emit('subscription_schedule.completed', world.scheduleJson(schedule), undefined, end);
      world.emit('customer.subscription.deleted', world.subscriptionJson(sub), undefined, end);
      return;
    } else {
      schedule.status = 'released';
      schedule.releasedAt = end;
      schedule.releasedSubscription = sub.id;
      sub.schedule = null;
      world.emit('subscription_schedule.released', world.scheduleJson(schedule), undefined, end);
    }
  }
  const next = periodAfter(sub.billingCycleAnchor, end);
  sub.item.periodStart = next.start;
  sub.item.periodEnd = next.end;
  const price = world.price(sub.item.price, 'price');
  const invoice = world.newInvoice(sub, 'subscription_cycle', [...sub.pendingInvoiceItems, world.periodLine(price, next.start, next.end)]);
  invoice.created = end;
  sub.pendingInvoiceItems = [];
  sub.latestInvoice = invoice.id;
  const isPaid = world.charge(invoice);
  if (isPaid) invoice.paidAt = end;
  else invoice.nextPaymentAttempt = end + RENEWAL_RETRY_DAYS[0] * DAY_S;
  sub.status = isPaid ? 'active' : 'past_due';
  world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)), end);
  world.emitInvoiceLifecycleAt(invoice, isPaid, end);
}

const isLive = (sub: SubscriptionRecord) => sub.status !== 'canceled' && sub.status !== 'incomplete_expired';

/** Another attempt at a failed renewal: paid, the subscription is active again; the last one failed, it is cancelled. */
function retryPayment(world: StripeWorld, invoice: InvoiceRecord): void {
  const at = world.now();
  invoice.nextPaymentAttempt = null;
  const sub = invoice.subscription ? world.subscriptions.get(invoice.subscription) : undefined;
  if (!sub || !isLive(sub)) return;
  const before = world.subscriptionJson(sub);
  const isPaid = world.charge(invoice);
  if (isPaid) {
    sub.status = 'active';
    world.emitInvoicePayment(invoice, true);
    world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)));
    return;
  }
  const retriesDone = invoice.attemptCount - 1;
  const wait = RENEWAL_RETRY_DAYS[retriesDone];
  if (wait !== undefined) {
    invoice.nextPaymentAttempt = at + wait * DAY_S;
    world.emitInvoicePayment(invoice, false);
    return;
  }
  world.emitInvoicePayment(invoice, false);
  sub.status = 'canceled';
  sub.canceledAt = at;
  sub.endedAt = at;
  if (sub.schedule) world.schedule(sub.schedule).status = 'canceled';
  sub.schedule = null;
  world.emit('customer.subscription.deleted', world.subscriptionJson(sub));
}
