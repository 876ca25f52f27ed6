// The stand-in's state: its records, its clock, the events it emitted, and the
// helpers the operations share (checkout.ts, subscriptions.ts, schedules.ts,
// clock.ts). Every change emits the events Stripe documents for it
// (docs.stripe.com/billing/subscriptions/webhooks).

import { sandboxPrices, type SandboxPrice } from './catalog.ts';
import { noSuch, StripeApiError } from './errors.ts';
import { API_VERSION, invoiceTotal, newId, type CheckoutSessionRecord, type CustomerRecord, type InvoiceLine, type InvoiceRecord, type PortalSessionRecord, type ScheduleRecord, type SubscriptionRecord } from './records.ts';
import { checkoutSessionJson, customerJson } from './json-sessions.ts';
import { invoiceJson, scheduleJson, subscriptionJson } from './json-billing.ts';

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

  /**
   * Everything the stand-in knows, as JSON, so that `npm run dev` can keep it
   * across restarts next to the database that refers to it. The clock is kept
   * as the time it showed, and goes on from there.
   */
  snapshot(): string {
    return JSON.stringify({
      version: 1,
      now: this.now(),
      customers: [...this.customers.values()],
      sessions: [...this.sessions.values()],
      subscriptions: [...this.subscriptions.values()],
      schedules: [...this.schedules.values()],
      invoices: [...this.invoices.values()],
      portalSessions: [...this.portalSessions.values()],
      events: this.events,
      failNextPayments: this.failNextPayments,
      invoiceCounter: this.invoiceCounter,
    });
  }

  restore(text: string): void {
    const saved = JSON.parse(text) as ReturnType<StripeWorld['snapshotShape']>;
    if (saved.version !== 1) throw new Error(`unknown stand-in state version ${String(saved.version)}`);
    this.reset();
    const fill = <T extends { id: string }>(map: Map<string, T>, rows: T[]) => rows.forEach((row) => map.set(row.id, row));
    fill(this.customers, saved.customers);
    fill(this.sessions, saved.sessions);
    fill(this.subscriptions, saved.subscriptions);
    fill(this.schedules, saved.schedules);
    fill(this.invoices, saved.invoices);
    fill(this.portalSessions, saved.portalSessions);
    this.events = saved.events;
    this.failNextPayments = saved.failNextPayments;
    this.invoiceCounter = saved.invoiceCounter;
    if (saved.now > this.now()) this.setNow(saved.now);
  }

  private snapshotShape() {
    return {
      version: 1 as number,
      now: 0,
      customers: [] as CustomerRecord[],
      sessions: [] as CheckoutSessionRecord[],
      subscriptions: [] as SubscriptionRecord[],
      schedules: [] as ScheduleRecord[],
      invoices: [] as InvoiceRecord[],
      portalSessions: [] as PortalSessionRecord[],
      events: [] as SandboxEvent[],
      failNextPayments: 0,
      invoiceCounter: 0,
    };
  }

  /** The stand-in's clock, in Unix seconds: real time plus what `/__sandbox/clock` added. */
  now(): number {
    return Math.floor(Date.now() / 1000) + this.clockOffsetS;
  }

  /** Sets the clock to `seconds` (Unix time); it only ever moves forward (clock.ts). */
  setNow(seconds: number): void {
    this.clockOffsetS = seconds - Math.floor(Date.now() / 1000);
  }

  failNextPayment(count = 1): void {
    this.failNextPayments += count;
  }

  takeEmitted(): SandboxEvent[] {
    const batch = this.emitted;
    this.emitted = [];
    return batch;
  }

  emit(type: string, object: Record<string, unknown>, previous?: Record<string, unknown>, at = this.now()): void {
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


  takeDecline(): boolean {
    if (this.failNextPayments === 0) return false;
    this.failNextPayments -= 1;
    return true;
  }

  requireLive(sub: SubscriptionRecord): void {
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      throw new StripeApiError(400, 'invalid_request_error', `A canceled subscription can only update its cancellation_details and metadata.`);
    }
  }

  periodLine(price: SandboxPrice, start: number, end: number): InvoiceLine {
    return { id: newId('il'), amount: price.unit_amount, description: `1 × ${price.nickname} (at $${(price.unit_amount / 100).toFixed(2)} / month)`, price: price.id, proration: false, period: { start, end } };
  }

  /** An invoice of the subscription's current period, not yet stored: a draft for a preview, or the start of a real one. */
  draftInvoice(sub: SubscriptionRecord, billingReason: InvoiceRecord['billingReason'], lines: InvoiceLine[]): InvoiceRecord {
    return {
      id: `upcoming_${newId('in')}`,
      created: this.now(),
      customer: sub.customer,
      subscription: sub.id,
      billingReason,
      status: 'draft',
      lines,
      attemptCount: 0,
      nextPaymentAttempt: null,
      paidAt: null,
      periodStart: sub.item.periodStart,
      periodEnd: sub.item.periodEnd,
      number: null,
    };
  }

  newInvoice(sub: SubscriptionRecord, billingReason: InvoiceRecord['billingReason'], lines: InvoiceLine[]): InvoiceRecord {
    this.invoiceCounter += 1;
    const invoice: InvoiceRecord = {
      ...this.draftInvoice(sub, billingReason, lines),
      id: newId('in'),
      status: 'open',
      number: `SANDBOX-${String(this.invoiceCounter).padStart(4, '0')}`,
    };
    this.invoices.set(invoice.id, invoice);
    return invoice;
  }

  /** Charges the customer's card for an open invoice; an amount of zero or less needs no payment. */
  charge(invoice: InvoiceRecord): boolean {
    invoice.attemptCount += 1;
    if (invoiceTotal(invoice) > 0 && this.takeDecline()) return false;
    invoice.status = 'paid';
    invoice.paidAt = this.now();
    return true;
  }

  emitInvoiceLifecycle(invoice: InvoiceRecord, isPaid: boolean): void {
    this.emit('invoice.created', this.invoiceJson({ ...invoice, status: 'draft' }));
    this.emit('invoice.finalized', this.invoiceJson({ ...invoice, status: 'open', paidAt: null }));
    if (isPaid) {
      this.emit('invoice.paid', this.invoiceJson(invoice));
      this.emit('invoice.payment_succeeded', this.invoiceJson(invoice));
    } else {
      this.emit('invoice.payment_failed', this.invoiceJson(invoice));
    }
  }

  /** A later attempt at an invoice already finalized: only the payment's events. */
  emitInvoicePayment(invoice: InvoiceRecord, isPaid: boolean): void {
    if (isPaid) {
      invoice.paidAt = this.now();
      this.emit('invoice.paid', this.invoiceJson(invoice));
      this.emit('invoice.payment_succeeded', this.invoiceJson(invoice));
    } else {
      this.emit('invoice.payment_failed', this.invoiceJson(invoice));
    }
  }

  emitInvoiceLifecycleAt(invoice: InvoiceRecord, isPaid: boolean, at: number): void {
    const start = this.emitted.length;
    this.emitInvoiceLifecycle(invoice, isPaid);
    for (const event of this.emitted.slice(start)) event.created = at;
  }
}

/** `previous_attributes`: the top-level fields whose values changed, with their old values. */
export function changedFields(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(before)) {
    if (JSON.stringify(value) !== JSON.stringify(after[key])) changed[key] = value;
  }
  return changed;
}

export const isProrationBehavior = (value: string): value is ProrationBehavior => (PRORATION_BEHAVIORS as readonly string[]).includes(value);
export const isPaymentBehavior = (value: string): value is PaymentBehavior => (PAYMENT_BEHAVIORS as readonly string[]).includes(value);
export type { ProrationBehavior, PaymentBehavior };
