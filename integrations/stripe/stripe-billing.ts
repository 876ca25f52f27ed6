import Stripe from 'stripe';
import { PAID_PLANS, type PaidPlanName, type StripeConfig } from './config.ts';

/** A subscription as our billing needs it, read from Stripe (never from an event's copy). */
export interface SubscriptionState {
  id: string;
  customerId: string;
  status: Stripe.Subscription.Status;
  /** Our account, from the metadata we set at Checkout; null if the subscription was made elsewhere. */
  accountId: number | null;
  itemId: string | null;
  priceId: string | null;
  /** Since API 2025-03-31.basil the period lives on the subscription item. */
  periodStart: Date;
  periodEnd: Date;
  billingCycleAnchor: Date;
  cancelAtPeriodEnd: boolean;
  endedAt: Date | null;
  /** An attached schedule and the price of its next phase (a downgrade waiting for the period end). */
  schedule: { id: string; nextPriceId: string | null } | null;
  /** `payment_behavior: pending_if_incomplete`: an update waiting for its payment. */
  hasPendingUpdate: boolean;
}

/**
 * A paid invoice of a subscription, reduced to what it changed: the plan's price
 * it billed (the period line, or for a mid-period change the line charging for
 * the new price), from when, and when it was paid.
 */
export interface BilledInvoice {
  id: string;
  billingReason: string | null;
  priceId: string | null;
  /** The billed line's period start: the new period, or the proration date of a change. */
  periodStart: Date;
  paidAt: Date;
}

export interface UpgradePreview {
  amountDueCents: number;
  currency: string;
}

const toDate = (seconds: number) => new Date(seconds * 1000);
const toSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const idOf = (value: string | { id: string } | null | undefined) => (value == null ? null : typeof value === 'string' ? value : value.id);

/**
 * Every Stripe call our billing makes, over the official SDK. The SDK's own
 * retries (with idempotency keys on POSTs) cover network faults; the host can
 * point at the local stand-in or stripe-mock through `STRIPE_API_BASE`.
 */
export class StripeBilling {
  readonly stripe: Stripe;
  readonly config: StripeConfig;

  constructor(config: StripeConfig, options: { maxNetworkRetries?: number } = {}) {
    this.config = config;
    const base = config.apiBase;
    const protocol = base.protocol === 'http:' ? 'http' : 'https';
    this.stripe = new Stripe(config.secretKey, {
      host: base.hostname,
      port: base.port || (protocol === 'http' ? 80 : 443),
      protocol,
      maxNetworkRetries: options.maxNetworkRetries ?? 2,
      timeout: 20_000,
    });
  }

  priceFor(plan: PaidPlanName): string {
    return this.config.prices[plan];
  }

  planFor(priceId: string | null): PaidPlanName | null {
    return PAID_PLANS.find((plan) => this.config.prices[plan] === priceId) ?? null;
  }

  async createCustomer(input: { accountId: number; email: string }): Promise<string> {
    const customer = await this.stripe.customers.create({ email: input.email, metadata: { account_id: String(input.accountId) } });
    return customer.id;
  }

  async createCheckoutSession(input: { customerId: string; accountId: number; plan: PaidPlanName; successUrl: string; cancelUrl: string }): Promise<{ id: string; url: string }> {
    const session = await this.stripe.checkout.sessions.create({
      mode: 'subscription',
      customer: input.customerId,
      client_reference_id: String(input.accountId),
      line_items: [{ price: this.priceFor(input.plan), quantity: 1 }],
      subscription_data: { metadata: { account_id: String(input.accountId) } },
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
    });
    if (!session.url) throw new Error(`Stripe returned Checkout session ${session.id} without a URL`);
    return { id: session.id, url: session.url };
  }

  /** What `upgrade` would charge now: the prorated difference for the rest of the period. */
  async previewUpgrade(input: { customerId: string; subscription: SubscriptionState; plan: PaidPlanName; at: Date }): Promise<UpgradePreview> {
    const invoice = await this.stripe.invoices.createPreview({
      customer: input.customerId,
      subscription: input.subscription.id,
      subscription_details: {
        items: [{ id: input.subscription.itemId ?? undefined, price: this.priceFor(input.plan) }],
        proration_behavior: 'always_invoice',
        proration_date: toSeconds(input.at),
      },
    });
    return { amountDueCents: invoice.amount_due, currency: invoice.currency };
  }

  /**
   * Paid → paid upgrade, invoiced at once; with `pending_if_incomplete` the
   * new price applies only when that invoice is paid (docs/decisions.md#plans).
   */
  async upgrade(input: { subscription: SubscriptionState; plan: PaidPlanName }): Promise<SubscriptionState> {
    const updated = await this.stripe.subscriptions.update(input.subscription.id, {
      items: [{ id: input.subscription.itemId ?? undefined, price: this.priceFor(input.plan) }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'pending_if_incomplete',
      expand: ['schedule'],
    });
    return this.toState(updated);
  }

  /** A downgrade at the period's end: a schedule whose second phase has the lower price, released afterwards. */
  async scheduleDowngrade(input: { subscription: SubscriptionState; plan: PaidPlanName }): Promise<string> {
    const sub = input.subscription;
    const scheduleId = sub.schedule?.id ?? (await this.stripe.subscriptionSchedules.create({ from_subscription: sub.id })).id;
    await this.stripe.subscriptionSchedules.update(scheduleId, {
      phases: [
        { items: [{ price: sub.priceId ?? undefined, quantity: 1 }], start_date: toSeconds(sub.periodStart), end_date: toSeconds(sub.periodEnd) },
        { items: [{ price: this.priceFor(input.plan), quantity: 1 }], proration_behavior: 'none' },
      ],
      end_behavior: 'release',
    });
    return scheduleId;
  }

  /** Revokes a scheduled downgrade: the subscription stays as it is. */
  async releaseSchedule(scheduleId: string): Promise<void> {
    await this.stripe.subscriptionSchedules.release(scheduleId);
  }

  /** Cancel at the period's end (back to Free then), or revoke that. */
  async setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<SubscriptionState> {
    return this.toState(await this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: cancel, expand: ['schedule'] }));
  }

  /** Ends the subscription now, without proration (account deletion). */
  async cancelNow(subscriptionId: string): Promise<void> {
    await this.stripe.subscriptions.cancel(subscriptionId);
  }

  async createPortalSession(input: { customerId: string; returnUrl: string }): Promise<string> {
    const session = await this.stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl });
    return session.url;
  }

  async retrieveSubscription(id: string): Promise<SubscriptionState> {
    return this.toState(await this.stripe.subscriptions.retrieve(id, { expand: ['schedule'] }));
  }

  /** The subscription, or null when Stripe answers "No such subscription" (it no longer has it). */
  async findSubscription(id: string): Promise<SubscriptionState | null> {
    try {
      return await this.retrieveSubscription(id);
    } catch (error) {
      if (isResourceMissing(error)) return null;
      throw error;
    }
  }

  /**
   * The subscription's paid invoices in Stripe's order, oldest first: what
   * Stripe billed, however late or out of order its events arrive.
   * GET /v1/invoices?subscription=…&status=paid (docs.stripe.com/api/invoices/list)
   * lists newest first, 100 a page at most, paged with `starting_after`.
   */
  async listPaidInvoices(subscriptionId: string): Promise<BilledInvoice[]> {
    const newestFirst: BilledInvoice[] = [];
    for await (const invoice of this.stripe.invoices.list({ subscription: subscriptionId, status: 'paid', limit: 100 })) {
      const billed = billedInvoice(invoice);
      if (billed) newestFirst.push(billed);
    }
    return newestFirst.reverse();
  }

  /** Throws `Stripe.errors.StripeSignatureVerificationError` for a bad signature or a timestamp older than 5 minutes. */
  verifyEvent(rawBody: Buffer, signatureHeader: string): Stripe.Event {
    return this.stripe.webhooks.constructEvent(rawBody, signatureHeader, this.config.webhookSecret);
  }

  private toState(sub: Stripe.Subscription): SubscriptionState {
    const item = sub.items.data[0];
    const schedule = typeof sub.schedule === 'object' && sub.schedule !== null ? sub.schedule : null;
    const periodEnd = item?.current_period_end ?? sub.billing_cycle_anchor;
    const nextPhase = schedule?.phases.find((phase) => phase.start_date >= periodEnd);
    const accountId = Number(sub.metadata?.account_id);
    return {
      id: sub.id,
      customerId: idOf(sub.customer)!,
      status: sub.status,
      accountId: Number.isSafeInteger(accountId) && accountId > 0 ? accountId : null,
      itemId: item?.id ?? null,
      priceId: item?.price.id ?? null,
      periodStart: toDate(item?.current_period_start ?? sub.start_date),
      periodEnd: toDate(periodEnd),
      billingCycleAnchor: toDate(sub.billing_cycle_anchor),
      cancelAtPeriodEnd: sub.cancel_at_period_end,
      endedAt: sub.ended_at ? toDate(sub.ended_at) : null,
      schedule: schedule || sub.schedule ? { id: idOf(sub.schedule)!, nextPriceId: idOf(nextPhase?.items[0]?.price) } : null,
      hasPendingUpdate: sub.pending_update != null,
    };
  }
}

/** A line's price: `pricing.price_details.price` since API 2025-03-31.basil. */
const priceOfLine = (line: Stripe.InvoiceLineItem) => idOf(line.pricing?.price_details?.price as string | { id: string } | undefined);
const isProration = (line: Stripe.InvoiceLineItem) =>
  Boolean(line.parent?.subscription_item_details?.proration ?? line.parent?.invoice_item_details?.proration);

function billedInvoice(invoice: Stripe.Invoice): BilledInvoice | null {
  const paidAt = invoice.status_transitions?.paid_at;
  if (!invoice.id || !paidAt) return null;
  const lines = invoice.lines.data;
  // A new period bills one regular line; a price change bills a credit for the old
  // price (negative) and a charge for the new one (docs.stripe.com/billing/subscriptions/prorations).
  const line = lines.find((candidate) => !isProration(candidate)) ?? lines.find((candidate) => isProration(candidate) && candidate.amount > 0);
  if (!line) return null;
  return { id: invoice.id, billingReason: invoice.billing_reason, priceId: priceOfLine(line), periodStart: toDate(line.period.start), paidAt: toDate(paidAt) };
}

/**
 * Stripe's "No such subscription" (and any other object it no longer has): a
 * 404 `invalid_request_error` with code `resource_missing` (docs.stripe.com/error-codes#resource-missing).
 */
export function isResourceMissing(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing';
}

export function createStripeBilling(config: StripeConfig, options: { maxNetworkRetries?: number } = {}): StripeBilling {
  return new StripeBilling(config, options);
}
