// The stand-in's records and how each is shown on the wire. Reply shapes follow
// Stripe's OpenAPI description and its fixtures (stripe/openapi,
// openapi/fixtures3.json `resources.<object>`); the fields our records do not
// model are given their documented empty values.

import { randomBytes } from 'node:crypto';
import type { SandboxPrice } from './catalog.ts';

export const API_VERSION = '2026-10-28.endive';

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

export interface CustomerRecord {
  id: string;
  created: number;
  email: string | null;
  name: string | null;
  metadata: Record<string, string>;
  /** A card was entered on a Checkout page: renewals and upgrades charge it. */
  hasCard: boolean;
}

export interface CheckoutSessionRecord {
  id: string;
  created: number;
  expiresAt: number;
  mode: 'payment' | 'setup' | 'subscription';
  customer: string | null;
  customerEmail: string | null;
  clientReferenceId: string | null;
  lineItems: Array<{ price: string; quantity: number }>;
  subscriptionMetadata: Record<string, string>;
  metadata: Record<string, string>;
  successUrl: string | null;
  cancelUrl: string | null;
  status: 'open' | 'complete' | 'expired';
  paymentStatus: 'unpaid' | 'paid';
  subscription: string | null;
  invoice: string | null;
  /** The last payment attempt on the page was declined. */
  declined: boolean;
}

export interface SubscriptionItemRecord {
  id: string;
  created: number;
  price: string;
  quantity: number;
  periodStart: number;
  periodEnd: number;
}

export interface SubscriptionRecord {
  id: string;
  created: number;
  customer: string;
  status: 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';
  item: SubscriptionItemRecord;
  billingCycleAnchor: number;
  startDate: number;
  cancelAtPeriodEnd: boolean;
  canceledAt: number | null;
  endedAt: number | null;
  metadata: Record<string, string>;
  schedule: string | null;
  pendingUpdate: { price: string; expiresAt: number; invoice: string } | null;
  latestInvoice: string | null;
  /** Prorations waiting for the next invoice (`proration_behavior: create_prorations`). */
  pendingInvoiceItems: InvoiceLine[];
}

export interface SchedulePhase {
  startDate: number;
  endDate: number;
  items: Array<{ price: string; quantity: number }>;
  prorationBehavior: 'always_invoice' | 'create_prorations' | 'none';
}

export interface ScheduleRecord {
  id: string;
  created: number;
  customer: string;
  subscription: string;
  status: 'not_started' | 'active' | 'completed' | 'released' | 'canceled';
  phases: SchedulePhase[];
  endBehavior: 'release' | 'cancel';
  releasedAt: number | null;
  releasedSubscription: string | null;
  metadata: Record<string, string>;
}

export interface InvoiceLine {
  id: string;
  amount: number;
  description: string;
  price: string;
  proration: boolean;
  period: { start: number; end: number };
}

export interface InvoiceRecord {
  id: string;
  created: number;
  customer: string;
  subscription: string | null;
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'manual' | 'upcoming';
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
  lines: InvoiceLine[];
  attemptCount: number;
  paidAt: number | null;
  periodStart: number;
  periodEnd: number;
  number: string | null;
}

export interface PortalSessionRecord {
  id: string;
  created: number;
  customer: string;
  returnUrl: string | null;
}

const total = (lines: InvoiceLine[]) => lines.reduce((sum, line) => sum + line.amount, 0);
export const invoiceTotal = (invoice: Pick<InvoiceRecord, 'lines'>) => total(invoice.lines);

/** fixtures3.json `resources.customer`. */
export function customerJson(c: CustomerRecord) {
  return {
    id: c.id,
    object: 'customer',
    address: null,
    balance: 0,
    created: c.created,
    currency: 'usd',
    default_source: null,
    delinquent: false,
    description: null,
    discount: null,
    email: c.email,
    invoice_prefix: c.id.slice(4, 12).toUpperCase(),
    invoice_settings: { custom_fields: null, default_payment_method: c.hasCard ? `pm_card_${c.id.slice(4)}` : null, footer: null, rendering_options: null },
    livemode: false,
    metadata: c.metadata,
    name: c.name,
    next_invoice_sequence: 1,
    phone: null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

/** fixtures3.json `resources["checkout.session"]`; `url` is the stand-in's hosted page. */
export function checkoutSessionJson(s: CheckoutSessionRecord, baseUrl: string, prices: Map<string, SandboxPrice>) {
  const amount = s.lineItems.reduce((sum, item) => sum + (prices.get(item.price)?.unit_amount ?? 0) * item.quantity, 0);
  return {
    id: s.id,
    object: 'checkout.session',
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: amount,
    amount_total: amount,
    automatic_tax: { enabled: false, liability: null, status: null },
    billing_address_collection: null,
    cancel_url: s.cancelUrl,
    client_reference_id: s.clientReferenceId,
    client_secret: null,
    consent: null,
    consent_collection: null,
    created: s.created,
    currency: 'usd',
    custom_fields: [],
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    customer: s.customer,
    customer_creation: s.customer ? null : 'always',
    customer_details: s.status === 'complete' ? { address: null, email: s.customerEmail, name: null, phone: null, tax_exempt: 'none', tax_ids: [] } : null,
    customer_email: s.customerEmail,
    expires_at: s.expiresAt,
    invoice: s.invoice,
    invoice_creation: null,
    livemode: false,
    locale: null,
    metadata: s.metadata,
    mode: s.mode,
    payment_intent: null,
    payment_link: null,
    payment_method_collection: 'always',
    payment_method_types: ['card'],
    payment_status: s.paymentStatus,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: s.status,
    submit_type: null,
    subscription: s.subscription,
    success_url: s.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
    url: s.status === 'open' ? `${baseUrl}/pay/${s.id}` : null,
  };
}

/** fixtures3.json `resources.subscription`; since API 2025-03-31.basil the period is on each item. */
export function subscriptionJson(s: SubscriptionRecord, prices: Map<string, SandboxPrice>, expandSchedule: ScheduleRecord | null) {
  const price = prices.get(s.item.price) ?? null;
  return {
    id: s.id,
    object: 'subscription',
    application: null,
    application_fee_percent: null,
    automatic_tax: { enabled: false, liability: null, disabled_reason: null },
    billing_cycle_anchor: s.billingCycleAnchor,
    billing_cycle_anchor_config: null,
    billing_mode: { type: 'flexible', flexible: null, updated_at: s.created },
    billing_thresholds: null,
    cancel_at: s.cancelAtPeriodEnd ? s.item.periodEnd : null,
    cancel_at_period_end: s.cancelAtPeriodEnd,
    canceled_at: s.canceledAt,
    cancellation_details: { comment: null, feedback: null, reason: s.canceledAt ? 'cancellation_requested' : null },
    collection_method: 'charge_automatically',
    created: s.created,
    currency: 'usd',
    customer: s.customer,
    days_until_due: null,
    default_payment_method: null,
    default_source: null,
    default_tax_rates: [],
    description: null,
    discounts: [],
    ended_at: s.endedAt,
    invoice_settings: { account_tax_ids: null, issuer: { type: 'self' } },
    items: {
      object: 'list',
      data: [
        {
          id: s.item.id,
          object: 'subscription_item',
          billing_thresholds: null,
          created: s.item.created,
          current_period_end: s.item.periodEnd,
          current_period_start: s.item.periodStart,
          discounts: [],
          metadata: {},
          price,
          quantity: s.item.quantity,
          subscription: s.id,
          tax_rates: [],
        },
      ],
      has_more: false,
      total_count: 1,
      url: `/v1/subscription_items?subscription=${s.id}`,
    },
    latest_invoice: s.latestInvoice,
    livemode: false,
    metadata: s.metadata,
    next_pending_invoice_item_invoice: null,
    on_behalf_of: null,
    pause_collection: null,
    payment_settings: { payment_method_options: null, payment_method_types: null, save_default_payment_method: 'off' },
    pending_invoice_item_interval: null,
    pending_setup_intent: null,
    pending_update: s.pendingUpdate
      ? {
          billing_cycle_anchor: null,
          expires_at: s.pendingUpdate.expiresAt,
          subscription_items: [{ id: s.item.id, object: 'subscription_item', price: prices.get(s.pendingUpdate.price) ?? null, quantity: s.item.quantity }],
          trial_end: null,
          trial_from_plan: null,
        }
      : null,
    schedule: expandSchedule ? scheduleJson(expandSchedule, s.item.periodStart) : s.schedule,
    start_date: s.startDate,
    status: s.status,
    test_clock: null,
    transfer_data: null,
    trial_end: null,
    trial_settings: { end_behavior: { missing_payment_method: 'create_invoice' } },
    trial_start: null,
  };
}

/** fixtures3.json `resources.subscription_schedule`. */
export function scheduleJson(s: ScheduleRecord, now: number | null) {
  const current = s.status === 'active' ? s.phases.find((phase) => phase.startDate <= (now ?? phase.startDate) && (now ?? 0) < phase.endDate) ?? s.phases[0] : null;
  return {
    id: s.id,
    object: 'subscription_schedule',
    application: null,
    billing_mode: { type: 'flexible', flexible: null, updated_at: s.created },
    canceled_at: null,
    completed_at: null,
    created: s.created,
    current_phase: current ? { start_date: current.startDate, end_date: current.endDate } : null,
    customer: s.customer,
    default_settings: { application_fee_percent: null, automatic_tax: { enabled: false, liability: null }, billing_cycle_anchor: 'automatic', billing_thresholds: null, collection_method: 'charge_automatically', default_payment_method: null, description: null, invoice_settings: { account_tax_ids: null, days_until_due: null, issuer: { type: 'self' } }, on_behalf_of: null, transfer_data: null },
    end_behavior: s.endBehavior,
    livemode: false,
    metadata: s.metadata,
    phases: s.phases.map((phase) => ({
      add_invoice_items: [],
      application_fee_percent: null,
      billing_cycle_anchor: null,
      billing_thresholds: null,
      collection_method: null,
      currency: 'usd',
      default_payment_method: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      end_date: phase.endDate,
      invoice_settings: null,
      items: phase.items.map((item) => ({ billing_thresholds: null, discounts: [], metadata: {}, plan: item.price, price: item.price, quantity: item.quantity, tax_rates: [] })),
      metadata: {},
      on_behalf_of: null,
      proration_behavior: phase.prorationBehavior,
      start_date: phase.startDate,
      transfer_data: null,
      trial_end: null,
    })),
    released_at: s.releasedAt,
    released_subscription: s.releasedSubscription,
    status: s.status,
    subscription: s.status === 'released' ? null : s.subscription,
    test_clock: null,
  };
}

/** fixtures3.json `resources.invoice`; since API 2025-03-31.basil the subscription is under `parent.subscription_details`. */
export function invoiceJson(i: InvoiceRecord, prices: Map<string, SandboxPrice>) {
  const amount = total(i.lines);
  const due = Math.max(0, amount);
  const paid = i.status === 'paid' ? due : 0;
  return {
    id: i.id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Prospect Enrichment (sandbox)',
    amount_due: due,
    amount_overpaid: 0,
    amount_paid: paid,
    amount_remaining: due - paid,
    amount_shipping: 0,
    attempt_count: i.attemptCount,
    attempted: i.attemptCount > 0,
    auto_advance: i.status === 'open',
    automatic_tax: { enabled: false, liability: null, status: null },
    billing_reason: i.billingReason,
    collection_method: 'charge_automatically',
    created: i.created,
    currency: 'usd',
    customer: i.customer,
    customer_email: null,
    default_payment_method: null,
    description: null,
    discounts: [],
    due_date: null,
    effective_at: i.status === 'draft' ? null : i.created,
    ending_balance: i.status === 'draft' ? null : Math.min(0, amount),
    hosted_invoice_url: null,
    invoice_pdf: null,
    last_finalization_error: null,
    lines: {
      object: 'list',
      data: i.lines.map((line) => ({
        id: line.id,
        object: 'line_item',
        amount: line.amount,
        currency: 'usd',
        description: line.description,
        discount_amounts: [],
        discountable: !line.proration,
        discounts: [],
        invoice: i.id,
        livemode: false,
        metadata: {},
        parent: {
          type: 'subscription_item_details',
          invoice_item_details: null,
          subscription_item_details: { invoice_item: null, proration: line.proration, proration_details: null, subscription: i.subscription, subscription_item: null },
        },
        period: line.period,
        pricing: { type: 'price_details', price_details: { price: line.price, product: prices.get(line.price)?.product ?? null }, unit_amount_decimal: String(line.amount) },
        quantity: 1,
        taxes: [],
      })),
      has_more: false,
      total_count: i.lines.length,
      url: `/v1/invoices/${i.id}/lines`,
    },
    livemode: false,
    metadata: {},
    next_payment_attempt: null,
    number: i.number,
    parent: i.subscription ? { type: 'subscription_details', quote_details: null, subscription_details: { metadata: {}, subscription: i.subscription } } : null,
    period_end: i.periodEnd,
    period_start: i.periodStart,
    starting_balance: 0,
    status: i.status,
    status_transitions: { finalized_at: i.status === 'draft' ? null : i.created, marked_uncollectible_at: null, paid_at: i.paidAt, voided_at: null },
    subtotal: amount,
    subtotal_excluding_tax: amount,
    test_clock: null,
    total: amount,
    total_discount_amounts: [],
    total_excluding_tax: amount,
    total_pretax_credit_amounts: [],
    total_taxes: [],
  };
}

/** fixtures3.json `resources["billing_portal.session"]`. */
export function portalSessionJson(p: PortalSessionRecord, baseUrl: string) {
  return {
    id: p.id,
    object: 'billing_portal.session',
    configuration: 'bpc_sandbox_default',
    created: p.created,
    customer: p.customer,
    flow: null,
    livemode: false,
    locale: null,
    on_behalf_of: null,
    return_url: p.returnUrl,
    url: `${baseUrl}/portal/${p.id}`,
  };
}
