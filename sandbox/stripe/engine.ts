// The stand-in's state and the billing behaviour of Stripe it models:
// Checkout in subscription mode, subscription updates with prorations,
// subscription schedules, cancellation at the period's end, renewals when the
// clock passes a period's end, and declined cards. Every change emits the
// events Stripe documents for it (docs.stripe.com/billing/subscriptions/webhooks).

import { sandboxPrices, type SandboxPrice } from './catalog.ts';
import { invalidEnum, invalidParam, missingParam, noSuch, StripeApiError } from './errors.ts';
import {
  API_VERSION,
  checkoutSessionJson,
  customerJson,
  invoiceJson,
  invoiceTotal,
  newId,
  scheduleJson,
  subscriptionJson,
  type CheckoutSessionRecord,
  type CustomerRecord,
  type InvoiceLine,
  type InvoiceRecord,
  type PortalSessionRecord,
  type ScheduleRecord,
  type SubscriptionRecord,
} from './objects.ts';
import { addMonths, periodAfter, prorationLines } from './periods.ts';

export interface SandboxEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: Record<string, unknown>; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

const CHECKOUT_SESSION_TTL_S = 24 * 3600;
/** Stripe keeps a `pending_if_incomplete` update for 23 hours (docs.stripe.com/billing/subscriptions/pending-updates). */
const PENDING_UPDATE_TTL_S = 23 * 3600;
export const PRORATION_BEHAVIORS = ['always_invoice', 'create_prorations', 'none'] as const;
export const PAYMENT_BEHAVIORS = ['allow_incomplete', 'default_incomplete', 'error_if_incomplete', 'pending_if_incomplete'] as const;
type ProrationBehavior = (typeof PRORATION_BEHAVIORS)[number];
type PaymentBehavior = (typeof PAYMENT_BEHAVIORS)[number];

export class StripeWorld {
  readonly baseUrl: string;
  prices = new Map<string, SandboxPrice>();
  customers = new Map<string, CustomerRecord>();
  sessions = new Map<string, CheckoutSessionRecord>();
  subscriptions = new Map<string, SubscriptionRecord>();
  schedules = new Map<string, ScheduleRecord>();
  invoices = new Map<string, InvoiceRecord>();
  portalSessions = new Map<string, PortalSessionRecord>();
  events: SandboxEvent[] = [];
  /** Events emitted since the last `takeEmitted()`: one API call's worth, delivered together. */
  private emitted: SandboxEvent[] = [];
  private clockOffsetS = 0;
  private failNextPayments = 0;
  private invoiceCounter = 0;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl;
    this.reset();
  }

  reset(): void {
    this.prices = new Map(sandboxPrices().map((price) => [price.id, price]));
    for (const map of [this.customers, this.sessions, this.subscriptions, this.schedules, this.invoices, this.portalSessions]) map.clear();
    this.events = [];
    this.emitted = [];
    this.clockOffsetS = 0;
    this.failNextPayments = 0;
    this.invoiceCounter = 0;
  }

  /** The stand-in's clock, in Unix seconds: real time plus what `/__sandbox/clock` added. */
  now(): number {
    return Math.floor(Date.now() / 1000) + this.clockOffsetS;
  }

  failNextPayment(count = 1): void {
    this.failNextPayments += count;
  }

  takeEmitted(): SandboxEvent[] {
    const batch = this.emitted;
    this.emitted = [];
    return batch;
  }

  private emit(type: string, object: Record<string, unknown>, previous?: Record<string, unknown>, at = this.now()): void {
    const event: SandboxEvent = {
      id: newId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: at,
      data: { object: structuredClone(object), ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.events.push(event);
    this.emitted.push(event);
  }

  // --- look-ups ------------------------------------------------------------

  price(id: string, param: string): SandboxPrice {
    const price = this.prices.get(id);
    if (!price) throw noSuch('price', id, param);
    return price;
  }

  customer(id: string, param = 'id'): CustomerRecord {
    const customer = this.customers.get(id);
    if (!customer) throw noSuch('customer', id, param);
    return customer;
  }

  session(id: string): CheckoutSessionRecord {
    const session = this.sessions.get(id);
    if (!session) throw noSuch('checkout.session', id);
    return session;
  }

  subscription(id: string, param = 'id'): SubscriptionRecord {
    const sub = this.subscriptions.get(id);
    if (!sub) throw noSuch('subscription', id, param);
    return sub;
  }

  schedule(id: string): ScheduleRecord {
    const schedule = this.schedules.get(id);
    if (!schedule) throw noSuch('subscription_schedule', id);
    return schedule;
  }

  // --- JSON ----------------------------------------------------------------

  customerJson = (c: CustomerRecord) => customerJson(c);
  sessionJson = (s: CheckoutSessionRecord) => checkoutSessionJson(s, this.baseUrl, this.prices);
  subscriptionJson = (s: SubscriptionRecord, expand: string[] = []) =>
    subscriptionJson(s, this.prices, expand.includes('schedule') && s.schedule ? this.schedule(s.schedule) : null);
  scheduleJson = (s: ScheduleRecord) => scheduleJson(s, this.now());
  invoiceJson = (i: InvoiceRecord) => invoiceJson(i, this.prices);

  // --- customers -----------------------------------------------------------

  createCustomer(input: { email: string | null; name: string | null; metadata: Record<string, string> }): CustomerRecord {
    const customer: CustomerRecord = { id: newId('cus'), created: this.now(), hasCard: false, ...input };
    this.customers.set(customer.id, customer);
    this.emit('customer.created', customerJson(customer));
    return customer;
  }

  // --- Checkout ------------------------------------------------------------

  createCheckoutSession(input: Omit<CheckoutSessionRecord, 'id' | 'created' | 'expiresAt' | 'status' | 'paymentStatus' | 'subscription' | 'invoice' | 'declined'>): CheckoutSessionRecord {
    const session: CheckoutSessionRecord = {
      ...input,
      id: `cs_test_${newId('x').slice(2)}`,
      created: this.now(),
      expiresAt: this.now() + CHECKOUT_SESSION_TTL_S,
      status: 'open',
      paymentStatus: 'unpaid',
      subscription: null,
      invoice: null,
      declined: false,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The Pay button: the card is charged for the first period, the subscription starts (docs.stripe.com/billing/subscriptions/build-subscriptions). */
  payCheckout(session: CheckoutSessionRecord): { paid: boolean } {
    if (session.status !== 'open') throw new StripeApiError(400, 'invalid_request_error', `This Checkout Session is no longer active (${session.status}).`, { code: 'checkout_session_inactive' });
    const now = this.now();
    const customer = session.customer
      ? this.customer(session.customer)
      : this.createCustomer({ email: session.customerEmail, name: null, metadata: {} });
    if (this.takeDecline()) {
      session.declined = true;
      return { paid: false };
    }
    customer.hasCard = true;
    const [line] = session.lineItems;
    const price = this.price(line!.price, 'line_items[0][price]');
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
    this.subscriptions.set(sub.id, sub);
    const invoice = this.newInvoice(sub, 'subscription_create', [this.periodLine(price, sub.item.periodStart, sub.item.periodEnd)]);
    invoice.status = 'paid';
    invoice.attemptCount = 1;
    invoice.paidAt = now;
    sub.latestInvoice = invoice.id;
    Object.assign(session, { customer: customer.id, customerEmail: customer.email, status: 'complete', paymentStatus: 'paid', subscription: sub.id, invoice: invoice.id, declined: false });
    this.emit('customer.subscription.created', this.subscriptionJson(sub));
    this.emitInvoiceLifecycle(invoice, true);
    this.emit('checkout.session.completed', this.sessionJson(session));
    return { paid: true };
  }

  private takeDecline(): boolean {
    if (this.failNextPayments === 0) return false;
    this.failNextPayments -= 1;
    return true;
  }

  // --- subscriptions -------------------------------------------------------

  /** POST /v1/subscriptions/:id with `items`: a price change, prorated and paid as `proration_behavior` and `payment_behavior` say. */
  changePrice(sub: SubscriptionRecord, priceId: string, prorationBehavior: ProrationBehavior, paymentBehavior: PaymentBehavior, prorationDate: number | null): void {
    this.requireLive(sub);
    if (sub.schedule) {
      throw new StripeApiError(400, 'invalid_request_error', `The subscription is managed by the subscription schedule \`${sub.schedule}\`, and updating its items directly is not allowed. Please update the schedule instead.`);
    }
    const newPrice = this.price(priceId, 'items[0][price]');
    const oldPrice = this.price(sub.item.price, 'items[0][price]');
    if (newPrice.id === oldPrice.id) return;
    const at = prorationDate ?? this.now();
    const before = this.subscriptionJson(sub);
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
      const invoice = this.newInvoice(sub, 'subscription_update', lines);
      sub.latestInvoice = invoice.id;
      const isPaid = this.charge(invoice);
      if (isPaid) {
        sub.item.price = newPrice.id;
        sub.pendingUpdate = null;
      } else if (paymentBehavior === 'pending_if_incomplete') {
        sub.pendingUpdate = { price: newPrice.id, expiresAt: this.now() + PENDING_UPDATE_TTL_S, invoice: invoice.id };
      } else if (paymentBehavior === 'error_if_incomplete') {
        invoice.status = 'void';
        throw new StripeApiError(402, 'card_error', 'Your card was declined.', { code: 'card_declined' });
      } else {
        sub.item.price = newPrice.id;
        sub.status = 'past_due';
      }
      this.emitInvoiceLifecycle(invoice, isPaid);
    }
    this.emit('customer.subscription.updated', this.subscriptionJson(sub), changedFields(before, this.subscriptionJson(sub)));
  }

  setCancelAtPeriodEnd(sub: SubscriptionRecord, cancel: boolean): void {
    this.requireLive(sub);
    if (sub.schedule) {
      throw new StripeApiError(400, 'invalid_request_error', `The subscription is managed by the subscription schedule \`${sub.schedule}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`);
    }
    if (sub.cancelAtPeriodEnd === cancel) return;
    const before = this.subscriptionJson(sub);
    sub.cancelAtPeriodEnd = cancel;
    sub.canceledAt = cancel ? this.now() : null;
    this.emit('customer.subscription.updated', this.subscriptionJson(sub), changedFields(before, this.subscriptionJson(sub)));
  }

  setMetadata(sub: SubscriptionRecord, metadata: Record<string, string>): void {
    const before = this.subscriptionJson(sub);
    sub.metadata = { ...sub.metadata, ...metadata };
    this.emit('customer.subscription.updated', this.subscriptionJson(sub), changedFields(before, this.subscriptionJson(sub)));
  }

  /** DELETE /v1/subscriptions/:id: ends it now (docs.stripe.com/api/subscriptions/cancel). */
  cancelNow(sub: SubscriptionRecord): void {
    this.requireLive(sub);
    const now = this.now();
    sub.status = 'canceled';
    sub.canceledAt = sub.canceledAt ?? now;
    sub.endedAt = now;
    if (sub.schedule) this.releaseSchedule(this.schedule(sub.schedule), 'canceled');
    this.emit('customer.subscription.deleted', this.subscriptionJson(sub));
  }

  private requireLive(sub: SubscriptionRecord): void {
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      throw new StripeApiError(400, 'invalid_request_error', `A canceled subscription can only update its cancellation_details and metadata.`);
    }
  }

  // --- schedules -----------------------------------------------------------

  scheduleFromSubscription(sub: SubscriptionRecord): ScheduleRecord {
    this.requireLive(sub);
    if (sub.schedule) throw new StripeApiError(400, 'invalid_request_error', `You cannot migrate a subscription that is already attached to a schedule: \`${sub.schedule}\`.`, { param: 'from_subscription' });
    const before = this.subscriptionJson(sub);
    const schedule: ScheduleRecord = {
      id: newId('sub_sched'),
      created: this.now(),
      customer: sub.customer,
      subscription: sub.id,
      status: 'active',
      phases: [{ startDate: sub.item.periodStart, endDate: sub.item.periodEnd, items: [{ price: sub.item.price, quantity: sub.item.quantity }], prorationBehavior: 'create_prorations' }],
      endBehavior: 'release',
      releasedAt: null,
      releasedSubscription: null,
      metadata: {},
    };
    this.schedules.set(schedule.id, schedule);
    sub.schedule = schedule.id;
    this.emit('subscription_schedule.created', this.scheduleJson(schedule));
    this.emit('customer.subscription.updated', this.subscriptionJson(sub), changedFields(before, this.subscriptionJson(sub)));
    return schedule;
  }

  /**
   * Replaces the phases. As Stripe requires, the current phase keeps its start;
   * a phase without an end lasts one billing interval (`iterations` 1).
   */
  updateSchedulePhases(schedule: ScheduleRecord, phases: Array<{ startDate: number | null; endDate: number | null; items: Array<{ price: string; quantity: number }>; prorationBehavior: ProrationBehavior }>, endBehavior: 'release' | 'cancel' | null): void {
    if (schedule.status !== 'active' && schedule.status !== 'not_started') {
      throw new StripeApiError(400, 'invalid_request_error', `You cannot update a subscription schedule that is ${schedule.status}.`);
    }
    const current = schedule.phases[0]!;
    const next: ScheduleRecord['phases'] = [];
    let start = phases[0]?.startDate ?? current.startDate;
    if (start !== current.startDate) throw invalidParam('phases[0][start_date]', 'You can not modify the start date of the current phase.');
    phases.forEach((phase, index) => {
      if (phase.items.length === 0) throw missingParam(`phases[${index}][items]`);
      phase.items.forEach((item, itemIndex) => this.price(item.price, `phases[${index}][items][${itemIndex}][price]`));
      if (index > 0 && phase.startDate !== null && phase.startDate !== start) {
        throw invalidParam(`phases[${index}][start_date]`, 'Phases must be contiguous: a phase starts where the previous one ends.');
      }
      const end = phase.endDate ?? addMonths(start, 1);
      if (end <= start) throw invalidParam(`phases[${index}][end_date]`, 'The end date of a phase must be after its start date.');
      next.push({ startDate: start, endDate: end, items: phase.items, prorationBehavior: phase.prorationBehavior });
      start = end;
    });
    schedule.phases = next;
    if (endBehavior) schedule.endBehavior = endBehavior;
    this.emit('subscription_schedule.updated', this.scheduleJson(schedule));
  }

  releaseSchedule(schedule: ScheduleRecord, how: 'released' | 'canceled' = 'released'): void {
    if (schedule.status !== 'active' && schedule.status !== 'not_started') {
      throw new StripeApiError(400, 'invalid_request_error', `You cannot release a subscription schedule that is currently in the \`${schedule.status}\` status.`);
    }
    const sub = this.subscription(schedule.subscription);
    const before = this.subscriptionJson(sub);
    schedule.status = how;
    schedule.releasedAt = this.now();
    schedule.releasedSubscription = how === 'released' ? sub.id : null;
    sub.schedule = null;
    this.emit(how === 'released' ? 'subscription_schedule.released' : 'subscription_schedule.canceled', this.scheduleJson(schedule));
    if (sub.status !== 'canceled') this.emit('customer.subscription.updated', this.subscriptionJson(sub), changedFields(before, this.subscriptionJson(sub)));
  }

  // --- invoices ------------------------------------------------------------

  /** POST /v1/invoices/create_preview for a price change: the prorations `always_invoice` would charge now. */
  previewPriceChange(sub: SubscriptionRecord, itemId: string | null, priceId: string, prorationBehavior: ProrationBehavior, prorationDate: number | null): InvoiceRecord {
    if (itemId !== null && itemId !== sub.item.id) throw invalidParam('subscription_details[items][0][id]', `The subscription item ${itemId} does not belong to ${sub.id}.`);
    const at = prorationDate ?? this.now();
    if (at < sub.item.periodStart || at >= sub.item.periodEnd) throw invalidParam('subscription_details[proration_date]', 'The proration date must be within the current subscription period.');
    const oldPrice = this.price(sub.item.price, 'subscription');
    const newPrice = this.price(priceId, 'subscription_details[items][0][price]');
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
      lines.push(...sub.pendingInvoiceItems, this.periodLine(newPrice, next.start, next.end));
    }
    return {
      id: `upcoming_${newId('in')}`,
      created: this.now(),
      customer: sub.customer,
      subscription: sub.id,
      billingReason: prorationBehavior === 'always_invoice' ? 'subscription_update' : 'upcoming',
      status: 'draft',
      lines,
      attemptCount: 0,
      paidAt: null,
      periodStart: sub.item.periodStart,
      periodEnd: sub.item.periodEnd,
      number: null,
    };
  }

  private periodLine(price: SandboxPrice, start: number, end: number): InvoiceLine {
    return { id: newId('il'), amount: price.unit_amount, description: `1 × ${price.nickname} (at $${(price.unit_amount / 100).toFixed(2)} / month)`, price: price.id, proration: false, period: { start, end } };
  }

  private newInvoice(sub: SubscriptionRecord, billingReason: InvoiceRecord['billingReason'], lines: InvoiceLine[]): InvoiceRecord {
    this.invoiceCounter += 1;
    const invoice: InvoiceRecord = {
      id: newId('in'),
      created: this.now(),
      customer: sub.customer,
      subscription: sub.id,
      billingReason,
      status: 'open',
      lines,
      attemptCount: 0,
      paidAt: null,
      periodStart: sub.item.periodStart,
      periodEnd: sub.item.periodEnd,
      number: `SANDBOX-${String(this.invoiceCounter).padStart(4, '0')}`,
    };
    this.invoices.set(invoice.id, invoice);
    return invoice;
  }

  /** Charges the customer's card for an open invoice; an amount of zero or less needs no payment. */
  private charge(invoice: InvoiceRecord): boolean {
    invoice.attemptCount += 1;
    if (invoiceTotal(invoice) > 0 && this.takeDecline()) return false;
    invoice.status = 'paid';
    invoice.paidAt = this.now();
    return true;
  }

  private emitInvoiceLifecycle(invoice: InvoiceRecord, isPaid: boolean): void {
    this.emit('invoice.created', this.invoiceJson({ ...invoice, status: 'draft' }));
    this.emit('invoice.finalized', this.invoiceJson({ ...invoice, status: 'open', paidAt: null }));
    if (isPaid) {
      this.emit('invoice.paid', this.invoiceJson(invoice));
      this.emit('invoice.payment_succeeded', this.invoiceJson(invoice));
    } else {
      this.emit('invoice.payment_failed', this.invoiceJson(invoice));
    }
  }

  // --- time ----------------------------------------------------------------

  /**
   * Moves the clock to `to` (Unix seconds), doing on the way what Stripe does
   * at each moment passed, in time order: schedule phases start, subscriptions
   * cancelled at the period's end end, the others renew and are charged.
   */
  advanceClock(to: number): void {
    if (to < this.now()) throw new StripeApiError(400, 'invalid_request_error', 'The clock only moves forward.', { param: 'to' });
    for (;;) {
      const due = [...this.subscriptions.values()]
        .filter((sub) => sub.status !== 'canceled' && sub.status !== 'incomplete_expired' && sub.item.periodEnd <= to)
        .sort((a, b) => a.item.periodEnd - b.item.periodEnd)[0];
      if (!due) break;
      this.clockOffsetS = Math.max(this.clockOffsetS, due.item.periodEnd - Math.floor(Date.now() / 1000));
      this.periodEnds(due);
    }
    this.clockOffsetS = to - Math.floor(Date.now() / 1000);
    for (const session of this.sessions.values()) {
      if (session.status === 'open' && session.expiresAt <= to) {
        session.status = 'expired';
        this.emit('checkout.session.expired', this.sessionJson(session));
      }
    }
    for (const sub of this.subscriptions.values()) {
      if (sub.pendingUpdate && sub.pendingUpdate.expiresAt <= to) {
        const before = this.subscriptionJson(sub);
        sub.pendingUpdate = null;
        this.emit('customer.subscription.pending_update_expired', this.subscriptionJson(sub), changedFields(before, this.subscriptionJson(sub)));
      }
    }
  }

  private periodEnds(sub: SubscriptionRecord): void {
    const end = sub.item.periodEnd;
    if (sub.cancelAtPeriodEnd) {
      sub.status = 'canceled';
      sub.endedAt = end;
      this.emit('customer.subscription.deleted', this.subscriptionJson(sub), undefined, end);
      return;
    }
    const before = this.subscriptionJson(sub);
    const schedule = sub.schedule ? this.schedule(sub.schedule) : null;
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
        this.emit('subscription_schedule.completed', this.scheduleJson(schedule), undefined, end);
        this.emit('customer.subscription.deleted', this.subscriptionJson(sub), undefined, end);
        return;
      } else {
        schedule.status = 'released';
        schedule.releasedAt = end;
        schedule.releasedSubscription = sub.id;
        sub.schedule = null;
        this.emit('subscription_schedule.released', this.scheduleJson(schedule), undefined, end);
      }
    }
    const next = periodAfter(sub.billingCycleAnchor, end);
    sub.item.periodStart = next.start;
    sub.item.periodEnd = next.end;
    const price = this.price(sub.item.price, 'price');
    const invoice = this.newInvoice(sub, 'subscription_cycle', [...sub.pendingInvoiceItems, this.periodLine(price, next.start, next.end)]);
    invoice.created = end;
    sub.pendingInvoiceItems = [];
    sub.latestInvoice = invoice.id;
    const isPaid = this.charge(invoice);
    if (isPaid) invoice.paidAt = end;
    sub.status = isPaid ? 'active' : 'past_due';
    this.emit('customer.subscription.updated', this.subscriptionJson(sub), changedFields(before, this.subscriptionJson(sub)), end);
    this.emitInvoiceLifecycleAt(invoice, isPaid, end);
  }

  private emitInvoiceLifecycleAt(invoice: InvoiceRecord, isPaid: boolean, at: number): void {
    const start = this.emitted.length;
    this.emitInvoiceLifecycle(invoice, isPaid);
    for (const event of this.emitted.slice(start)) event.created = at;
  }
}

/** `previous_attributes`: the top-level fields whose values changed, with their old values. */
function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(before)) {
    if (JSON.stringify(value) !== JSON.stringify(after[key])) changed[key] = value;
  }
  return changed;
}

export const isProrationBehavior = (value: string): value is ProrationBehavior => (PRORATION_BEHAVIORS as readonly string[]).includes(value);
export const isPaymentBehavior = (value: string): value is PaymentBehavior => (PAYMENT_BEHAVIORS as readonly string[]).includes(value);
export { invalidEnum };
export type { ProrationBehavior, PaymentBehavior };
