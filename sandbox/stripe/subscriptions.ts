// Subscription updates (docs.stripe.com/api/subscriptions/update): price
// changes with prorations (docs.stripe.com/billing/subscriptions/prorations),
// pending updates, cancellation at the period's end or at once; and the
// invoice preview of such a change.

import { invalidParam, StripeApiError } from './errors.ts';
import { newId, type InvoiceLine, type InvoiceRecord, type SubscriptionRecord } from './records.ts';
import { periodAfter, prorationLines } from './periods.ts';
import { releaseSchedule } from './schedules.ts';
import { changedFields, type PaymentBehavior, type ProrationBehavior, type StripeWorld } from './world.ts';

/** Stripe keeps a `pending_if_incomplete` update for 23 hours (docs.stripe.com/billing/subscriptions/pending-updates). */
const PENDING_UPDATE_TTL_S = 23 * 3600;

/** POST /v1/subscriptions/:id with `items`: a price change, prorated and paid as `proration_behavior` and `payment_behavior` say. */
export function changePrice(world: StripeWorld, sub: SubscriptionRecord, priceId: string, prorationBehavior: ProrationBehavior, paymentBehavior: PaymentBehavior, prorationDate: number | null): void {
  world.requireLive(sub);
  if (sub.schedule) {
    throw new StripeApiError(400, 'invalid_request_error', `The subscription is managed by the subscription schedule \`${sub.schedule}\`, and updating its items directly is not allowed. Please update the schedule instead.`);
  }
  const newPrice = world.price(priceId, 'items[0][price]');
  const oldPrice = world.price(sub.item.price, 'items[0][price]');
  if (newPrice.id === oldPrice.id) return;
  const at = prorationDate ?? world.now();
  const before = world.subscriptionJson(sub);
  const { credit, charge } = prorationLines(oldPrice.unit_amount * sub.item.quantity, newPrice.unit_amount * sub.item.quantity, { start: sub.item.periodStart, end: sub.item.periodEnd }, at);
  const lines: InvoiceLine[] = [
    { id: newId('il'), amount: credit, description: `Unused time on ${oldPrice.nickname}`, price: oldPrice.id, proration: true, period: { start: at, end: sub.item.periodEnd } },
    { id: newId('il'), amount: charge, description: `Remaining time on ${newPrice.nickname}`, price: newPrice.id, proration: true, period: { start: at, end: sub.item.periodEnd } },
  ];
  if (prorationBehavior === 'none') {
    sub.item.price = newPrice.id;
  } else if (prorationBehavior === 'create_prorations') {
    sub.pendingInvoiceItems.push(...lines);
    sub.item.price = newPrice.id;
  } else {
    const invoice = world.newInvoice(sub, 'subscription_update', lines);
    sub.latestInvoice = invoice.id;
    const isPaid = world.charge(invoice);
    if (isPaid) {
      sub.item.price = newPrice.id;
      sub.pendingUpdate = null;
    } else if (paymentBehavior === 'pending_if_incomplete') {
      sub.pendingUpdate = { price: newPrice.id, expiresAt: world.now() + PENDING_UPDATE_TTL_S, invoice: invoice.id };
    } else if (paymentBehavior === 'error_if_incomplete') {
      invoice.status = 'void';
      throw new StripeApiError(402, 'card_error', 'Your card was declined.', { code: 'card_declined' });
    } else {
      sub.item.price = newPrice.id;
      sub.status = 'past_due';
    }
    world.emitInvoiceLifecycle(invoice, isPaid);
  }
  world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)));
}

export function setCancelAtPeriodEnd(world: StripeWorld, sub: SubscriptionRecord, cancel: boolean): void {
  world.requireLive(sub);
  if (sub.schedule) {
    throw new StripeApiError(400, 'invalid_request_error', `The subscription is managed by the subscription schedule \`${sub.schedule}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`);
  }
  if (sub.cancelAtPeriodEnd === cancel) return;
  const before = world.subscriptionJson(sub);
  sub.cancelAtPeriodEnd = cancel;
  sub.canceledAt = cancel ? world.now() : null;
  world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)));
}

export function setMetadata(world: StripeWorld, sub: SubscriptionRecord, metadata: Record<string, string>): void {
  const before = world.subscriptionJson(sub);
  sub.metadata = { ...sub.metadata, ...metadata };
  world.emit('customer.subscription.updated', world.subscriptionJson(sub), changedFields(before, world.subscriptionJson(sub)));
}

/** DELETE /v1/subscriptions/:id: ends it now (docs.stripe.com/api/subscriptions/cancel). */
export function cancelNow(world: StripeWorld, sub: SubscriptionRecord): void {
  world.requireLive(sub);
  const now = world.now();
  sub.status = 'canceled';
  sub.canceledAt = sub.canceledAt ?? now;
  sub.endedAt = now;
  if (sub.schedule) releaseSchedule(world, world.schedule(sub.schedule), 'canceled');
  world.emit('customer.subscription.deleted', world.subscriptionJson(sub));
}


// --- invoices ------------------------------------------------------------

/** POST /v1/invoices/create_preview for a price change: the prorations `always_invoice` would charge now. */
export function previewPriceChange(world: StripeWorld, sub: SubscriptionRecord, itemId: string | null, priceId: string, prorationBehavior: ProrationBehavior, prorationDate: number | null): InvoiceRecord {
  if (itemId !== null && itemId !== sub.item.id) throw invalidParam('subscription_details[items][0][id]', `The subscription item ${itemId} does not belong to ${sub.id}.`);
  const at = prorationDate ?? world.now();
  if (at < sub.item.periodStart || at >= sub.item.periodEnd) throw invalidParam('subscription_details[proration_date]', 'The proration date must be within the current subscription period.');
  const oldPrice = world.price(sub.item.price, 'subscription');
  const newPrice = world.price(priceId, 'subscription_details[items][0][price]');
  const lines: InvoiceLine[] = [];
  if (prorationBehavior !== 'none' && newPrice.id !== oldPrice.id) {
    const { credit, charge } = prorationLines(oldPrice.unit_amount * sub.item.quantity, newPrice.unit_amount * sub.item.quantity, { start: sub.item.periodStart, end: sub.item.periodEnd }, at);
    lines.push(
      { id: newId('il'), amount: credit, description: `Unused time on ${oldPrice.nickname}`, price: oldPrice.id, proration: true, period: { start: at, end: sub.item.periodEnd } },
      { id: newId('il'), amount: charge, description: `Remaining time on ${newPrice.nickname}`, price: newPrice.id, proration: true, period: { start: at, end: sub.item.periodEnd } },
    );
  }
  if (prorationBehavior !== 'always_invoice') {
    // Without always_invoice the preview is the next regular invoice, prorations included.
    const next = periodAfter(sub.billingCycleAnchor, sub.item.periodEnd);
    lines.push(...sub.pendingInvoiceItems, world.periodLine(newPrice, next.start, next.end));
  }
  return world.draftInvoice(sub, prorationBehavior === 'always_invoice' ? 'subscription_update' : 'upcoming', lines);
}

