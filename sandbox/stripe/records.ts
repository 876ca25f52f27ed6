// The stand-in's records: what it keeps of each Stripe object it models.
// How each is shown on the wire is in json-sessions.ts and json-billing.ts.

import { randomBytes } from 'node:crypto';

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
  /** When Stripe charges a failed invoice again (clock.ts); null: no further attempt. */
  nextPaymentAttempt: number | null;
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
