// The test clock: moving it does what Stripe does at each moment passed
// (docs.stripe.com/billing/testing/test-clocks): periods end and renew with an
// invoice (`billing_reason: subscription_cycle`), schedule phases start,
// cancellations take effect, sessions and pending updates expire.

import { StripeApiError } from './errors.ts';
import type { SubscriptionRecord } from './records.ts';
import { periodAfter } from './periods.ts';
import { changedFields, type StripeWorld } from './world.ts';

/**
 * Moves the clock to `to` (Unix seconds), doing on the way what Stripe does
 * at each moment passed, in time order: schedule phases start, subscriptions
 * cancelled at the period's end end, the others renew and are charged.
 */
export function advanceClock(world: StripeWorld, to: number): void {
  if (to < world.now()) throw new StripeApiError(400, 'invalid_request_error', 'The clock only moves forward.', { param: 'to' });
  for (;;) {
    const due = [...world.subscriptions.values()]
      .filter((sub) => sub.status !== 'canceled' && sub.status !== 'incomplete_expired' && sub.item.periodEnd <= to)
      .sort((a, b) => a.item.periodEnd - b.item.periodEnd)[0];
    if (!due) break;
    if (due.item.periodEnd > world.now()) world.setNow(due.item.periodEnd);
    periodEnds(world, due);
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
  sub.status = isPaid ? 'active' : 'past_due';
  world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)), end);
  world.emitInvoiceLifecycleAt(invoice, isPaid, end);
}

