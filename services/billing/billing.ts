import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { AppError } from '../../domain/errors.ts';
import type { BillingOverview, PlanOption, UpgradeOffer } from '../../domain/dashboard/replies.ts';
import { PLAN_NAMES, PLANS, planRank, type PlanName } from '../../domain/billing/plans.ts';
import type { PaidPlanName } from '../../integrations/stripe/config.ts';
import type { StripeBilling, SubscriptionState } from '../../integrations/stripe/stripe-billing.ts';
import { upgradeCredits } from '../accounts/accounts.ts';
import { lockAccount } from './credits.ts';

// What the dashboard's Billing page calls. Nothing here changes a plan or a
// credit: payments are asked of Stripe, and its verified webhooks apply them
// (services/billing/stripe-sync.ts). Only the pending change is written at once, so
// the page shows it before the webhook confirms it.

/** Billing's dependency: the Stripe client, or null when billing is not configured. */
export type Billing = StripeBilling | null;

export type { BillingOverview, PlanOption, UpgradeOffer };

const requireBilling = (billing: Billing): StripeBilling => {
  if (!billing) throw new AppError('billing_not_configured', 'Payments are not configured on this server.');
  return billing;
};

const paidPlan = (plan: PlanName): PaidPlanName => {
  if (plan === 'free') throw new AppError('plan_change_not_allowed', 'The Free plan is reached by cancelling the subscription.');
  return plan;
};

export async function billingOverview(em: EntityManager, billing: Billing, accountId: number, now = new Date()): Promise<BillingOverview> {
  const account = await em.findOneOrFail(Account, accountId, { refresh: true });
  const cycle = billingCycleAt(account.billingAnchor, account.cycleStart);
  const subscription = billing && account.stripeSubscriptionId ? await billing.findSubscription(account.stripeSubscriptionId) : null;
  // Stripe lost it (test data deleted, another Stripe account): no plan change can be offered until support sorts it out.
  const isSubscriptionMissing = billing !== null && account.stripeSubscriptionId !== null && subscription === null;
  const plans: PlanOption[] = await Promise.all(
    PLAN_NAMES.map(async (name) => {
      const isHigher = planRank(name) > planRank(account.plan);
      const upgrade = billing && isHigher && name !== 'free' && !isSubscriptionMissing ? await upgradeOffer(billing, account, subscription, name, now) : null;
      return { ...PLANS[name], isCurrent: name === account.plan, upgrade };
    }),
  );
  return {
    plan: account.plan,
    cycle: { start: cycle.start.toISOString(), end: cycle.end.toISOString() },
    credits: { used: account.creditsUsed, limit: account.creditLimit, remaining: Math.max(0, account.creditLimit - account.creditsUsed) },
    pendingChange: account.pendingPlan
      ? { plan: account.pendingPlan, kind: account.pendingPlan === 'free' ? 'cancellation' : 'downgrade', effectiveAt: cycle.end.toISOString() }
      : null,
    subscriptionStatus: isSubscriptionMissing ? 'missing' : account.stripeSubscriptionId ? (account.subscriptionStatus ?? null) : null,
    lastPlanChange: await lastPlanChange(em, account),
    hasBillingAccount: account.stripeCustomerId !== null,
    isBillingConfigured: billing !== null,
    plans,
  };
}

/**
 * What this cycle's latest plan change gave, from the ledger: the credits left to
 * spend just before it were carried over, the rest of what it left to spend was
 * added. Spendable = limit − used, with used the running sum of the entries.
 */
async function lastPlanChange(em: EntityManager, account: IAccount): Promise<BillingOverview['lastPlanChange']> {
  const rows: Array<{ id: number; limit_after: number; used_delta: number; created_at: Date; limit_before: number | null; used_before: string | number }> = await em.execute(
    `select c.id, c.limit_after, c.used_delta, c.created_at,
            (select p.limit_after from credit_ledger_entry p where p.account_id = c.account_id and p.id < c.id order by p.id desc limit 1) as limit_before,
            (select coalesce(sum(p.used_delta), 0) from credit_ledger_entry p where p.account_id = c.account_id and p.id < c.id) as used_before
       from credit_ledger_entry c
      where c.account_id = ? and c.kind = 'plan_change' and c.cycle_start = ?
      order by c.id desc limit 1`,
    [account.id, account.cycleStart],
  );
  const change = rows[0];
  if (!change) return null;
  const usedBefore = Number(change.used_before);
  // Before any ledger entry an account has its Free plan's first limit.
  const carriedOver = Math.max(0, (change.limit_before ?? PLANS.free.creditsPerCycle) - usedBefore);
  const spendableAfter = change.limit_after - (usedBefore + change.used_delta);
  return { at: new Date(change.created_at).toISOString(), carriedOver, added: Math.max(0, spendableAfter - carriedOver) };
}

async function upgradeOffer(billing: StripeBilling, account: IAccount, subscription: SubscriptionState | null, plan: PaidPlanName, now: Date): Promise<UpgradeOffer> {
  if (!subscription || !account.stripeCustomerId) {
    // Checkout starts a new cycle on the subscription's period: all of it is ahead (services/billing/stripe-sync.ts).
    const unused = Math.max(0, account.creditLimit - account.creditsUsed);
    return {
      via: 'checkout',
      amountDueCents: PLANS[plan].monthlyPriceUsd * 100,
      currency: 'usd',
      creditsCarriedOver: unused,
      creditsAdded: PLANS[plan].creditsPerCycle,
      creditLimitAfter: PLANS[plan].creditsPerCycle + unused,
    };
  }
  // Stripe prorates within its period; a clock behind the period's start previews at its start.
  const at = new Date(Math.min(Math.max(now.getTime(), subscription.periodStart.getTime()), subscription.periodEnd.getTime() - 1000));
  const preview = await billing.previewUpgrade({ customerId: account.stripeCustomerId, subscription, plan, at });
  const credits = upgradeCredits(account, plan, at);
  return {
    via: 'subscription_update',
    amountDueCents: preview.amountDueCents,
    currency: preview.currency,
    creditsCarriedOver: credits.unused,
    creditsAdded: credits.prorated,
    creditLimitAfter: credits.limitAfter,
  };
}

/** Free → paid: a Stripe Checkout page to send the browser to. The plan changes when Stripe's webhook says it is paid. */
export async function startCheckout(
  em: EntityManager,
  billing: Billing,
  accountId: number,
  plan: PlanName,
  urls: { successUrl: string; cancelUrl: string },
): Promise<{ url: string }> {
  const stripe = requireBilling(billing);
  const target = paidPlan(plan);
  const account = await em.findOneOrFail(Account, accountId, { refresh: true });
  if (account.stripeSubscriptionId) throw new AppError('plan_change_not_allowed', 'This account already has a subscription: change its plan instead.');
  const customerId = account.stripeCustomerId ?? (await linkNewCustomer(em, stripe, account));
  const session = await stripe.createCheckoutSession({ customerId, accountId, plan: target, ...urls });
  return { url: session.url };
}

/**
 * Paid → paid upgrade, charged now (prorated). `paid`: Stripe took the
 * payment and its webhook brings the plan and credits; `payment_pending`: the
 * card was declined or needs action, the plan stays (update the card in the portal).
 */
export async function upgrade(em: EntityManager, billing: Billing, accountId: number, plan: PlanName): Promise<{ status: 'paid' | 'payment_pending' }> {
  const stripe = requireBilling(billing);
  const target = paidPlan(plan);
  const { account, subscription } = await subscribed(em, stripe, accountId);
  if (planRank(target) <= planRank(account.plan)) throw new AppError('plan_change_not_allowed', `The account is on ${account.plan}; ${target} is not an upgrade.`);
  // An upgrade replaces any change waiting for the period's end (Stripe refuses to
  // update items a schedule manages); it stays withdrawn if the payment then fails.
  if (subscription.schedule) await stripe.releaseSchedule(subscription.schedule.id);
  if (subscription.cancelAtPeriodEnd) await stripe.setCancelAtPeriodEnd(subscription.id, false);
  const updated = await stripe.upgrade({ subscription, plan: target });
  return { status: updated.hasPendingUpdate || stripe.planFor(updated.priceId) !== target ? 'payment_pending' : 'paid' };
}

/** A lower paid plan from the next cycle start; `free` is a cancellation. */
export async function scheduleDowngrade(em: EntityManager, billing: Billing, accountId: number, plan: PlanName): Promise<BillingOverview['pendingChange']> {
  if (plan === 'free') return cancelSubscription(em, billing, accountId);
  const stripe = requireBilling(billing);
  const { account, subscription } = await subscribed(em, stripe, accountId);
  if (planRank(plan) >= planRank(account.plan)) throw new AppError('plan_change_not_allowed', `The account is on ${account.plan}; ${plan} is not a downgrade.`);
  if (subscription.cancelAtPeriodEnd) await stripe.setCancelAtPeriodEnd(subscription.id, false);
  await stripe.scheduleDowngrade({ subscription, plan });
  return setPendingPlan(em, accountId, plan);
}

/** Back to Free at the cycle's end: the subscription is cancelled at its period's end. */
export async function cancelSubscription(em: EntityManager, billing: Billing, accountId: number): Promise<BillingOverview['pendingChange']> {
  const stripe = requireBilling(billing);
  const { subscription } = await subscribed(em, stripe, accountId);
  // Stripe refuses to change the cancellation of a subscription a schedule manages.
  if (subscription.schedule) await stripe.releaseSchedule(subscription.schedule.id);
  await stripe.setCancelAtPeriodEnd(subscription.id, true);
  return setPendingPlan(em, accountId, 'free');
}

/** Keeps the current plan: a scheduled downgrade or cancellation is withdrawn. */
export async function revokePendingChange(em: EntityManager, billing: Billing, accountId: number): Promise<void> {
  const stripe = requireBilling(billing);
  const { subscription } = await subscribed(em, stripe, accountId);
  if (subscription.schedule) await stripe.releaseSchedule(subscription.schedule.id);
  if (subscription.cancelAtPeriodEnd) await stripe.setCancelAtPeriodEnd(subscription.id, false);
  await setPendingPlan(em, accountId, null);
}

/**
 * Account deletion (docs/decisions.md#retention-and-account-deletion): the subscription ends at once, so no
 * further payment is taken. Nothing to do on Free. The webhook that follows
 * records the end (back to Free, a ledger row) like any other.
 */
export async function cancelSubscriptionNow(em: EntityManager, billing: Billing, accountId: number): Promise<void> {
  const account = await em.findOneOrFail(Account, accountId, { refresh: true });
  if (!account.stripeSubscriptionId) return;
  const stripe = requireBilling(billing);
  const subscription = await stripe.findSubscription(account.stripeSubscriptionId);
  // One Stripe no longer has takes no payment either.
  if (!subscription || subscription.status === 'canceled' || subscription.status === 'incomplete_expired') return;
  await stripe.cancelNow(subscription.id);
}

/** Stripe's Billing Portal (cards, invoices) for the account's customer. */
export async function portalUrl(em: EntityManager, billing: Billing, accountId: number, returnUrl: string): Promise<{ url: string }> {
  const stripe = requireBilling(billing);
  const account = await em.findOneOrFail(Account, accountId, { refresh: true });
  if (!account.stripeCustomerId) throw new AppError('plan_change_not_allowed', 'The account has never paid: choose a plan first.');
  return { url: await stripe.createPortalSession({ customerId: account.stripeCustomerId, returnUrl }) };
}

/**
 * Creates the account's Stripe customer. Two Checkouts started at once both
 * create one; the first to be linked wins and the other stays unused in Stripe.
 */
async function linkNewCustomer(em: EntityManager, stripe: StripeBilling, account: IAccount): Promise<string> {
  const created = await stripe.createCustomer({ accountId: account.id, email: account.ownerEmail });
  await em.execute('update account set stripe_customer_id = ? where id = ? and stripe_customer_id is null', [created, account.id]);
  const rows: Array<{ stripe_customer_id: string }> = await em.execute('select stripe_customer_id from account where id = ?', [account.id]);
  return rows[0]!.stripe_customer_id;
}

async function subscribed(em: EntityManager, stripe: StripeBilling, accountId: number): Promise<{ account: IAccount; subscription: SubscriptionState }> {
  const account = await em.findOneOrFail(Account, accountId, { refresh: true });
  if (!account.stripeSubscriptionId) throw new AppError('plan_change_not_allowed', 'The account has no paid subscription: upgrade through Checkout.');
  const subscription = await stripe.findSubscription(account.stripeSubscriptionId);
  if (!subscription) throw new AppError('plan_change_not_allowed', SUBSCRIPTION_MISSING);
  return { account, subscription };
}

const SUBSCRIPTION_MISSING = "Stripe no longer has this account's subscription, so its plan cannot be changed here. Contact support.";


/** The pending change as the page should show it now; the webhook that follows writes the same from Stripe's state. */
async function setPendingPlan(em: EntityManager, accountId: number, plan: PlanName | null): Promise<BillingOverview['pendingChange']> {
  return em.transactional(async (tx) => {
    const account = await lockAccount(tx, accountId, new Date());
    account.pendingPlan = plan;
    await tx.flush();
    if (!plan) return null;
    const cycle = billingCycleAt(account.billingAnchor, account.cycleStart);
    return { plan, kind: plan === 'free' ? 'cancellation' : 'downgrade', effectiveAt: cycle.end.toISOString() };
  });
}
