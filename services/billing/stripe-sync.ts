import type Stripe from 'stripe';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, CreditLedgerEntry } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { PLANS, planRank, type PlanName } from '../../domain/billing/plans.ts';
import { pauseAccountIntegrations } from '../crm/connections.ts';
import { isResourceMissing, type BilledInvoice, type StripeBilling, type SubscriptionState } from '../../integrations/stripe/stripe-billing.ts';
import { upgradeLockedAccount } from '../accounts/accounts.ts';
import { lockAccount } from './credits.ts';

// Stripe's webhooks are the only way plans and credits change (docs/decisions.md#plans,
// docs/billing.md#how-plans-and-credits-change). Events arrive late, twice, or out of order, so an event is only a
// nudge: the subscription and its paid invoices are read again from Stripe, one
// event of an account at a time, and the account follows what Stripe billed,
// invoice by invoice in Stripe's order, then what the subscription says now.
// So the same history gives the same credits however its events arrive.

/** Subscription statuses under which the plan is the subscription's (`past_due`: the plan stays while Stripe retries). */
const LIVE_STATUSES = new Set<string>(['active', 'trialing', 'past_due', 'unpaid']);
const ENDED_STATUSES = new Set<string>(['canceled', 'incomplete_expired']);

/** First key of the per-account advisory lock that orders an account's events (any constant no other lock uses). */
const STRIPE_SYNC_LOCK_CLASS = 0x5354_5250; // "STRP"

export interface PaymentFailure {
  account: IAccount;
  invoiceId: string;
  plan: PlanName;
}

/** Tells the owner a payment failed; runs inside the event's transaction (an outbox row, so a retried event mails once). */
export type PaymentFailedNotifier = (em: EntityManager, failure: PaymentFailure) => Promise<void>;

export type EventOutcome = 'applied' | 'duplicate' | 'ignored';

export interface EventResult {
  outcome: EventOutcome;
  accountId: number | null;
  crmPaused?: boolean;
  /** The event names a subscription Stripe no longer has: acknowledged, nothing changed. */
  missingSubscriptionId?: string;
}

interface EventRefs {
  accountId: number | null;
  customerId: string | null;
  subscriptionId: string | null;
}

const idOf = (value: unknown): string | null =>
  typeof value === 'string' ? value : value && typeof value === 'object' && 'id' in value && typeof value.id === 'string' ? value.id : null;

function positiveInt(value: unknown): number | null {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

function refsOf(event: Stripe.Event): EventRefs | null {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      if (session.mode !== 'subscription') return null;
      return { accountId: positiveInt(session.client_reference_id), customerId: idOf(session.customer), subscriptionId: idOf(session.subscription) };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const sub = event.data.object;
      return { accountId: positiveInt(sub.metadata?.account_id), customerId: idOf(sub.customer), subscriptionId: sub.id };
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = event.data.object;
      return { accountId: null, customerId: idOf(invoice.customer), subscriptionId: idOf(invoice.parent?.subscription_details?.subscription) };
    }
    case 'subscription_schedule.updated':
    case 'subscription_schedule.released': {
      const schedule = event.data.object;
      return { accountId: null, customerId: idOf(schedule.customer), subscriptionId: idOf(schedule.subscription) ?? schedule.released_subscription };
    }
    default:
      return null;
  }
}

/**
 * Applies one verified event, once: its id is inserted in the transaction of
 * its effect, so a second delivery (a retry, a replay, a concurrent twin that
 * waits on the unique key) finds it and changes nothing.
 */
export async function applyStripeEvent(
  em: EntityManager,
  billing: StripeBilling,
  event: Stripe.Event,
  notifyPaymentFailed: PaymentFailedNotifier,
): Promise<EventResult> {
  const refs = refsOf(event);
  if (!refs) return { outcome: 'ignored', accountId: null };
  const at = new Date(event.created * 1000);
  return em.transactional(async (tx) => {
    const inserted: unknown[] = await tx.execute('insert into stripe_event (id, type, account_id, received_at) values (?, ?, null, ?) on conflict (id) do nothing returning id', [
      event.id,
      event.type,
      new Date(),
    ]);
    if (inserted.length === 0) return { outcome: 'duplicate' as const, accountId: null };

    const found = await findAccount(tx, refs);
    if (!found) return { outcome: 'ignored' as const, accountId: null };
    // One event of an account at a time, so the state read from Stripe last is the
    // one committed last. An advisory lock rather than the account's row lock:
    // research requests take that one for their credit and must not wait on Stripe.
    await tx.execute('select pg_advisory_xact_lock(?, ?)', [STRIPE_SYNC_LOCK_CLASS, found.id]);
    let subscription: SubscriptionState | null = null;
    let billed: BilledInvoice[] = [];
    if (refs.subscriptionId) {
      try {
        subscription = await billing.retrieveSubscription(refs.subscriptionId);
        billed = await billing.listPaidInvoices(refs.subscriptionId);
      } catch (error) {
        // "No such subscription": a validly signed event about what Stripe no longer
        // has. Nothing to follow; kept as handled (a redelivery is a duplicate) and
        // answered 2xx, or Stripe would retry it for days.
        if (!isResourceMissing(error)) throw error;
        await tx.execute('update stripe_event set account_id = ? where id = ?', [found.id, event.id]);
        return { outcome: 'ignored' as const, accountId: found.id, missingSubscriptionId: refs.subscriptionId };
      }
    }
    // The plan before this event (read before the lock, which may itself apply a pending downgrade).
    const planBefore = found.plan;
    const account = await lockAccount(tx, found.id, at);
    if (!account.stripeCustomerId && refs.customerId) account.stripeCustomerId = refs.customerId;
    if (subscription) syncSubscription(tx, billing, account, subscription, billed, at);
    // A plan below Growth pauses the CRM integrations, with that reason (docs/decisions.md#crm-integration).
    const crmPaused = PLANS[planBefore].hasCrmIntegration && !PLANS[account.plan].hasCrmIntegration;
    if (crmPaused) await pauseAccountIntegrations(tx, account.id, 'plan', at);
    // A failed renewal e-mails the owner (docs/decisions.md#plans). A declined upgrade
    // is told on the page that asked for it (services/billing/billing.ts `upgrade`).
    if (event.type === 'invoice.payment_failed' && event.data.object.billing_reason === 'subscription_cycle') {
      await notifyPaymentFailed(tx, { account, invoiceId: event.data.object.id!, plan: account.plan });
    }
    await tx.execute('update stripe_event set account_id = ? where id = ?', [account.id, event.id]);
    await tx.flush();
    return { outcome: 'applied' as const, accountId: account.id, crmPaused };
  });
}

async function findAccount(em: EntityManager, refs: EventRefs): Promise<IAccount | null> {
  if (refs.accountId !== null) {
    const byId = await em.findOne(Account, refs.accountId);
    // The id came from our own metadata; the customer must match once one is linked.
    if (byId && (!byId.stripeCustomerId || !refs.customerId || byId.stripeCustomerId === refs.customerId)) return byId;
  }
  return refs.customerId ? em.findOne(Account, { stripeCustomerId: refs.customerId }) : null;
}

/**
 * Brings a locked account in line with its subscription: first each paid
 * invoice not yet reflected, oldest first, as it was when paid; then the
 * subscription as Stripe has it now (status, pending change, and any change
 * made without an invoice). Idempotent: each step compares with the account's
 * state, so applying the same history twice changes nothing the second time.
 */
export function syncSubscription(em: EntityManager, billing: StripeBilling, account: IAccount, sub: SubscriptionState, billed: BilledInvoice[], at: Date): void {
  if (account.stripeSubscriptionId !== null && account.stripeSubscriptionId !== sub.id) return; // an older (or a second) subscription: the followed one decides
  const isEnded = ENDED_STATUSES.has(sub.status);
  // An ended subscription the account does not follow (any more) is history, not to be started again.
  if (!isEnded || account.stripeSubscriptionId === sub.id) {
    for (const invoice of billed) applyBilledInvoice(em, billing, account, sub, invoice);
  }
  const isFollowed = account.stripeSubscriptionId === sub.id;
  if (isEnded) {
    if (isFollowed) endSubscription(em, account, sub);
    return;
  }
  const plan = billing.planFor(sub.priceId);
  if (!LIVE_STATUSES.has(sub.status) || plan === null) return; // `incomplete`: not paid yet; or a price that is none of our plans
  account.subscriptionStatus = sub.status;
  if (!isFollowed) {
    startSubscription(em, account, sub, plan, sub.periodStart);
  } else if (sub.periodStart.getTime() > account.cycleStart.getTime()) {
    renew(em, account, sub, plan, sub.periodStart);
  } else if (planRank(plan) > planRank(account.plan)) {
    upgradeLockedAccount(em, account, plan, at);
  }
  account.pendingPlan = pendingPlanOf(billing, account, sub, plan);
}

/**
 * One paid invoice, as it moved plan and credits when Stripe was paid: the
 * first starts the subscription, a renewal starts its period, a mid-period
 * change to a higher price upgrades as of its payment (docs/decisions.md#plans:
 * upgrades take effect when the payment succeeds). What the account already
 * reflects (an earlier period, a plan it already has) is passed over.
 */
function applyBilledInvoice(em: EntityManager, billing: StripeBilling, account: IAccount, sub: SubscriptionState, invoice: BilledInvoice): void {
  const plan = billing.planFor(invoice.priceId);
  if (plan === null) return;
  if (account.stripeSubscriptionId !== sub.id) {
    if (invoice.billingReason === 'subscription_create') startSubscription(em, account, sub, plan, invoice.periodStart);
    return;
  }
  if (invoice.billingReason === 'subscription_cycle' && invoice.periodStart.getTime() > account.cycleStart.getTime()) {
    renew(em, account, sub, plan, invoice.periodStart);
  } else if (invoice.billingReason === 'subscription_update' && invoice.paidAt.getTime() >= account.cycleStart.getTime() && planRank(plan) > planRank(account.plan)) {
    upgradeLockedAccount(em, account, plan, invoice.paidAt);
  }
}

/** What the account changes to at the period's end, as the subscription says. */
function pendingPlanOf(billing: StripeBilling, account: IAccount, sub: SubscriptionState, plan: PlanName): PlanName | null {
  if (sub.cancelAtPeriodEnd) return 'free';
  const next = sub.schedule?.nextPriceId ? billing.planFor(sub.schedule.nextPriceId) : null;
  if (next && next !== account.plan) return next;
  // A price lowered mid-period (for example in the Billing Portal) applies at the next cycle start.
  if (planRank(plan) < planRank(account.plan)) return plan;
  return null;
}

/**
 * Free → paid: the cycle now follows the subscription's period
 * (docs/decisions.md#plans); the whole period is ahead, so the new plan's credits come in full,
 * plus the unused credits of the Free cycle.
 */
function startSubscription(em: EntityManager, account: IAccount, sub: SubscriptionState, plan: PlanName, periodStart: Date): void {
  const usedBefore = account.creditsUsed;
  const unused = Math.max(0, account.creditLimit - account.creditsUsed);
  account.stripeSubscriptionId = sub.id;
  account.plan = plan;
  account.billingAnchor = sub.billingCycleAnchor;
  account.cycleStart = periodStart;
  account.creditsUsed = 0;
  account.creditLimit = PLANS[plan].creditsPerCycle + unused;
  ledger(em, account, 'plan_change', -usedBefore, `subscribed to ${plan}: ${unused} carried over + ${PLANS[plan].creditsPerCycle} for the new cycle`);
}

/** A new period (the renewal's invoice, or a scheduled downgrade taking effect): credits reset on the subscription's plan. */
function renew(em: EntityManager, account: IAccount, sub: SubscriptionState, plan: PlanName, periodStart: Date): void {
  const usedBefore = account.creditsUsed;
  account.plan = plan;
  account.billingAnchor = sub.billingCycleAnchor;
  account.cycleStart = periodStart;
  account.creditsUsed = 0;
  account.creditLimit = PLANS[plan].creditsPerCycle;
  ledger(em, account, 'cycle_reset', -usedBefore, `new cycle on ${plan}`);
}

/** The subscription ended (cancelled at the period's end, or by Stripe after failed payments): back to Free. */
function endSubscription(em: EntityManager, account: IAccount, sub: SubscriptionState): void {
  const endedAt = sub.endedAt ?? sub.periodEnd;
  const usedBefore = account.creditsUsed;
  account.stripeSubscriptionId = null;
  account.subscriptionStatus = sub.status;
  account.pendingPlan = null;
  account.plan = 'free';
  account.cycleStart = billingCycleAt(account.billingAnchor, endedAt).start;
  account.creditsUsed = 0;
  account.creditLimit = PLANS.free.creditsPerCycle;
  ledger(em, account, 'cycle_reset', -usedBefore, 'subscription ended: new cycle on free');
}

function ledger(em: EntityManager, account: IAccount, kind: 'plan_change' | 'cycle_reset', usedDelta: number, note: string): void {
  em.create(CreditLedgerEntry, { account, researchId: null, kind, usedDelta, limitAfter: account.creditLimit, cycleStart: account.cycleStart, note });
}
