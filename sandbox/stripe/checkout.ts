// Checkout in subscription mode (docs.stripe.com/billing/subscriptions/build-subscriptions):
// a session is created by the API, then paid (or left) on the hosted page.

import { StripeApiError } from './errors.ts';
import { newId, type CheckoutSessionRecord, type SubscriptionRecord } from './records.ts';
import { addMonths } from './periods.ts';
import type { StripeWorld } from './world.ts';

const CHECKOUT_SESSION_TTL_S = 24 * 3600;

export function createCheckoutSession(world: StripeWorld, input: Omit<CheckoutSessionRecord, 'id' | 'created' | 'expiresAt' | 'status' | 'paymentStatus' | 'subscription' | 'invoice' | 'declined'>): CheckoutSessionRecord {
  const session: CheckoutSessionRecord = {
    ...input,
    id: `cs_test_${newId('x').slice(2)}`,
    created: world.now(),
    expiresAt: world.now() + CHECKOUT_SESSION_TTL_S,
    status: 'open',
    paymentStatus: 'unpaid',
    subscription: null,
    invoice: null,
    declined: false,
  };
  world.sessions.set(session.id, session);
  return session;
}

/** The Pay button: the card is charged for the first period, the subscription starts (docs.stripe.com/billing/subscriptions/build-subscriptions). */
export function payCheckout(world: StripeWorld, session: CheckoutSessionRecord): { paid: boolean } {
  if (session.status !== 'open') throw new StripeApiError(400, 'invalid_request_error', `This Checkout Session is no longer active (${session.status}).`, { code: 'checkout_session_inactive' });
  const now = world.now();
  const customer = session.customer
    ? world.customer(session.customer)
    : world.createCustomer({ email: session.customerEmail, name: null, metadata: {} });
  if (world.takeDecline()) {
    session.declined = true;
    return { paid: false };
  }
  customer.hasCard = true;
  const [line] = session.lineItems;
  const price = world.price(line!.price, 'line_items[0][price]');
  const sub: SubscriptionRecord = {
    id: newId('sub'),
    created: now,
    customer: customer.id,
    status: 'active',
    item: { id: newId('si'), created: now, price: price.id, quantity: line!.quantity, periodStart: now, periodEnd: addMonths(now, 1) },
    billingCycleAnchor: now,
    startDate: now,
    cancelAtPeriodEnd: false,
    canceledAt: null,
    endedAt: null,
    metadata: { ...session.subscriptionMetadata },
    schedule: null,
    pendingUpdate: null,
    latestInvoice: null,
    pendingInvoiceItems: [],
  };
  world.subscriptions.set(sub.id, sub);
  const invoice = world.newInvoice(sub, 'subscription_create', [world.periodLine(price, sub.item.periodStart, sub.item.periodEnd)]);
  invoice.status = 'paid';
  invoice.attemptCount = 1;
  invoice.paidAt = now;
  sub.latestInvoice = invoice.id;
  Object.assign(session, { customer: customer.id, customerEmail: customer.email, status: 'complete', paymentStatus: 'paid', subscription: sub.id, invoice: invoice.id, declined: false });
  world.emit('customer.subscription.created', world.subscriptionJson(sub));
  world.emitInvoiceLifecycle(invoice, true);
  world.emit('checkout.session.completed', world.sessionJson(session));
  return { paid: true };
}

