import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { billingCycleAt, cycleShareLeft } from '../../domain/billing/cycle.ts';
import { PLANS } from '../../domain/billing/plans.ts';
import { billingOverview, cancelSubscription, cancelSubscriptionNow, portalUrl, revokePendingChange, scheduleDowngrade, startCheckout, upgrade } from '../../services/billing/billing.ts';
import { CHECKOUT_URLS, clickCheckout, startBillingStack, type BillingStack } from './billing-stack.ts';

// The Billing page's operations against the Stripe stand-in, with the real
// webhook route applying what Stripe reports (docs/decisions.md#plans): plans and
// credits change only when a verified event says a payment went through.

let b: BillingStack;
const DAY_MS = 24 * 3600 * 1000;

beforeAll(async () => {
  b = await startBillingStack();
});
afterAll(() => b?.stop());
// Each test starts with the stand-in's clock at real time, as the app's clock is.
beforeEach(() => b.resetStripe());

const em = () => b.stack.orm.em.fork();

/** A Free account that used one of its 3 credits, then paid for `plan` through Checkout. */
async function subscribedAccount(plan: 'starter' | 'growth') {
  const accountId = await b.stack.createAccount('free');
  await b.useCredits(accountId, 1);
  const { url } = await startCheckout(em(), b.billing, accountId, plan, CHECKOUT_URLS);
  const paid = await clickCheckout(url, 'Pay');
  expect(paid.status).toBe(303);
  await b.settled();
  return accountId;
}

describe('Free → paid through Checkout', () => {
  it('the plan and credits change when the webhook reports the payment: the new plan in full plus the unused Free credits', async () => {
    const accountId = await b.stack.createAccount('free');
    await b.useCredits(accountId, 1);
    const before = await billingOverview(em(), b.billing, accountId);
    const growthOffer = before.plans.find((plan) => plan.name === 'growth')!.upgrade!;
    expect(growthOffer).toMatchObject({ via: 'checkout', amountDueCents: 14_900, creditsCarriedOver: 2, creditsAdded: 200, creditLimitAfter: 202 });

    const { url } = await startCheckout(em(), b.billing, accountId, 'growth', CHECKOUT_URLS);
    expect(url.startsWith(`${b.stripe.url}/pay/`)).toBe(true);
    // A redirect back to the app proves nothing: nothing changes before the webhook.
    expect((await b.account(accountId)).plan).toBe('free');
    const paid = await clickCheckout(url, 'Pay');
    expect(paid.page).toContain('$149.00');
    expect(paid.location).toMatch(/^https:\/\/app\.example\.test\/app\/billing\?checkout=cs_test_/);
    await b.settled();

    const account = await b.account(accountId);
    const subscription = await b.billing.retrieveSubscription(account.stripeSubscriptionId!);
    expect(account).toMatchObject({ plan: 'growth', creditsUsed: 0, creditLimit: 202, pendingPlan: null, subscriptionStatus: 'active' });
    expect(account.cycleStart.toISOString()).toBe(subscription.periodStart.toISOString());
    const overview = await billingOverview(em(), b.billing, accountId);
    expect(overview.cycle).toEqual({ start: subscription.periodStart.toISOString(), end: subscription.periodEnd.toISOString() });
    expect(overview.plans.map((plan) => [plan.name, plan.isCurrent, plan.upgrade?.via ?? null])).toEqual([
      ['free', false, null],
      ['starter', false, null],
      ['growth', true, null],
      ['scale', false, 'subscription_update'],
    ]);
    const ledger = await b.ledger(accountId);
    expect(ledger.at(-1)).toMatchObject({ kind: 'plan_change', used_delta: -1, limit_after: 202 });
    expect(ledger.filter((row) => row.kind === 'plan_change')).toHaveLength(1);
    expect(overview.lastPlanChange).toMatchObject({ carriedOver: 2, added: 200 });
  });

  it('Checkout cancelled: back to the app, nothing changes', async () => {
    const accountId = await b.stack.createAccount('free');
    const ledgerBefore = await b.ledger(accountId);
    const eventsBefore = b.events().length;
    const { url } = await startCheckout(em(), b.billing, accountId, 'scale', CHECKOUT_URLS);
    const cancelled = await clickCheckout(url, 'Cancel');
    expect(cancelled).toMatchObject({ status: 303, location: CHECKOUT_URLS.cancelUrl });
    await b.settled();
    // Only the customer startCheckout created: no subscription, no invoice, no completed session.
    expect(b.events().slice(eventsBefore).map((event) => event.type)).toEqual(['customer.created']);
    expect(await b.account(accountId)).toMatchObject({ plan: 'free', creditLimit: 3, stripeSubscriptionId: null, pendingPlan: null });
    expect(await b.ledger(accountId)).toEqual(ledgerBefore);
  });

  it('a declined card on the Checkout page: no subscription, nothing changes', async () => {
    const accountId = await b.stack.createAccount('free');
    const { url } = await startCheckout(em(), b.billing, accountId, 'starter', CHECKOUT_URLS);
    await fetch(`${b.stripe.url}/__sandbox/fail-next-payment`, { method: 'POST' });
    const declined = await clickCheckout(url, 'Pay');
    expect(declined.location).toMatch(/\/pay\/cs_test_/);
    expect(await (await fetch(url)).text()).toContain('Your card was declined');
    await b.settled();
    expect(await b.account(accountId)).toMatchObject({ plan: 'free', creditLimit: 3, stripeSubscriptionId: null });
  });
});

describe('the Stripe customer', () => {
  it('two Checkouts started at once link one customer to the account', async () => {
    const accountId = await b.stack.createAccount('free');
    const [first, second] = await Promise.all([startCheckout(em(), b.billing, accountId, 'growth', CHECKOUT_URLS), startCheckout(em(), b.billing, accountId, 'scale', CHECKOUT_URLS)]);
    const linked = (await b.account(accountId)).stripeCustomerId;
    const sessions = [first, second].map(({ url }) => b.stripe.world.session(url.split('/').at(-1)!));
    expect(sessions.map((session) => session.customer)).toEqual([linked, linked]);
  });

  it('the Billing Portal: a plan change made there reaches the account through the webhook', async () => {
    const accountId = await subscribedAccount('starter');
    const { url } = await portalUrl(em(), b.billing, accountId, `${CHECKOUT_URLS.cancelUrl}`);
    const page = await (await fetch(url)).text();
    expect(page).toContain('<label for="price-');
    expect(page).toContain('aria-label="Invoices"');
    const action = page.match(/<form method="post" action="([^"]+\/change)">/)![1]!;
    const changed = await fetch(new URL(action, url), { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'price=price_scale_monthly' });
    expect(changed.status).toBe(302);
    await b.settled();
    expect(await b.account(accountId)).toMatchObject({ plan: 'scale' });
  });
});

describe('paid → paid upgrade', () => {
  it('charges the prorated difference and adds the new plan prorated over the days left plus the unused credits', async () => {
    const accountId = await subscribedAccount('starter');
    await b.useCredits(accountId, 20);
    const started = await b.account(accountId);
    // Ten days into the cycle, as Stripe's clock has it.
    await b.advanceClockTo(new Date(started.cycleStart.getTime() + 10 * DAY_MS));
    const stripeNow = new Date(b.stripe.world.now() * 1000);

    const overview = await billingOverview(em(), b.billing, accountId, stripeNow);
    const offer = overview.plans.find((plan) => plan.name === 'growth')!.upgrade!;
    const cycle = billingCycleAt(started.billingAnchor, started.cycleStart);
    const share = (cycle.end.getTime() - stripeNow.getTime()) / (cycle.end.getTime() - cycle.start.getTime());
    expect(offer.via).toBe('subscription_update');
    expect(offer.amountDueCents).toBe(Math.round(14_900 * share) - Math.round(4_900 * share));
    expect(offer.creditsCarriedOver).toBe(started.creditLimit - 20);

    const result = await upgrade(em(), b.billing, accountId, 'growth');
    expect(result).toEqual({ status: 'paid' });
    await b.settled();

    const upgradedAt = new Date(b.events('customer.subscription.updated').at(-1)!.created * 1000);
    const prorated = Math.round(PLANS.growth.creditsPerCycle * cycleShareLeft(cycle, upgradedAt));
    const unused = started.creditLimit - 20;
    const account = await b.account(accountId);
    expect(account).toMatchObject({ plan: 'growth', creditsUsed: 20, creditLimit: 20 + unused + prorated });
    expect(prorated).toBeGreaterThan(100);
    expect(prorated).toBeLessThan(200);
    expect((await b.ledger(accountId)).at(-1)).toMatchObject({ kind: 'plan_change', used_delta: 0, note: `upgrade to growth: ${unused} carried over + ${prorated} prorated` });
    // What the Billing page's confirmation says: the unused credits kept and the prorated ones added.
    expect((await billingOverview(em(), b.billing, accountId, stripeNow)).lastPlanChange).toMatchObject({ carriedOver: unused, added: prorated });
  });

  it('payment declined: the plan and credits stay, the page is told (no renewal e-mail)', async () => {
    const accountId = await subscribedAccount('starter');
    const before = await b.account(accountId);
    const ledgerBefore = await b.ledger(accountId);
    await fetch(`${b.stripe.url}/__sandbox/fail-next-payment`, { method: 'POST' });
    expect(await upgrade(em(), b.billing, accountId, 'scale')).toEqual({ status: 'payment_pending' });
    await b.settled();
    const after = await b.account(accountId);
    expect(after).toMatchObject({ plan: 'starter', creditLimit: before.creditLimit, creditsUsed: before.creditsUsed });
    expect(await b.ledger(accountId)).toEqual(ledgerBefore);
    expect(b.events('invoice.payment_failed').at(-1)!.data.object.billing_reason).toBe('subscription_update');
    expect(await b.outbox(accountId)).toEqual([]);
  });

  it('a failed renewal keeps the plan (past due) and e-mails the owner once', async () => {
    const accountId = await subscribedAccount('growth');
    const before = await b.account(accountId);
    const cycle = billingCycleAt(before.billingAnchor, before.cycleStart);
    await fetch(`${b.stripe.url}/__sandbox/fail-next-payment`, { method: 'POST' });
    await b.advanceClockTo(new Date(cycle.end.getTime() + 3600_000));
    const after = await b.account(accountId);
    expect(after).toMatchObject({ plan: 'growth', subscriptionStatus: 'past_due', creditsUsed: 0, creditLimit: PLANS.growth.creditsPerCycle });
    const failed = b.events('invoice.payment_failed').at(-1)!;
    expect(failed.data.object.billing_reason).toBe('subscription_cycle');
    // Stripe delivering the failure again does not mail again.
    await fetch(`${b.stripe.url}/__sandbox/events/${failed.id}/resend`, { method: 'POST' });
    await b.settled();
    const mails = await b.outbox(accountId);
    expect(mails).toEqual([{ recipient: before.ownerEmail, subject: 'Your payment did not go through', dedupe_key: `payment-failed:${failed.data.object.id}` }]);
  });
});

describe('a renewal that keeps failing', () => {
  it('the plan stays while Stripe retries; a retry that succeeds makes it active again', async () => {
    const accountId = await subscribedAccount('starter');
    const start = await b.account(accountId);
    const cycle = billingCycleAt(start.billingAnchor, start.cycleStart);
    await fetch(`${b.stripe.url}/__sandbox/fail-next-payment`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 1 }) });
    await b.advanceClockTo(new Date(cycle.end.getTime() + 2 * DAY_MS));
    expect(await b.account(accountId)).toMatchObject({ plan: 'starter', subscriptionStatus: 'past_due' });
    await b.advanceClockTo(new Date(cycle.end.getTime() + 4 * DAY_MS));
    expect(await b.account(accountId)).toMatchObject({ plan: 'starter', subscriptionStatus: 'active', creditLimit: 50 });
    expect((await b.outbox(accountId)).map((mail) => mail.subject)).toEqual(['Your payment did not go through']);
  });

  it('after the last failed attempt Stripe cancels the subscription: back on Free, one e-mail for the invoice', async () => {
    const accountId = await subscribedAccount('growth');
    const start = await b.account(accountId);
    const cycle = billingCycleAt(start.billingAnchor, start.cycleStart);
    await fetch(`${b.stripe.url}/__sandbox/fail-next-payment`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ count: 4 }) });
    await b.advanceClockTo(new Date(cycle.end.getTime() + 14 * DAY_MS));
    expect(await b.account(accountId)).toMatchObject({ plan: 'growth', subscriptionStatus: 'past_due' });
    expect(b.events('invoice.payment_failed')).toHaveLength(3);
    await b.advanceClockTo(new Date(cycle.end.getTime() + 16 * DAY_MS));
    expect(b.events('invoice.payment_failed')).toHaveLength(4);
    expect(await b.account(accountId)).toMatchObject({ plan: 'free', stripeSubscriptionId: null, creditLimit: 3 });
    expect(await b.outbox(accountId)).toHaveLength(1);
  });
});

describe('downgrade and cancellation at the cycle end', () => {
  it('a scheduled downgrade is pending and revocable, then applied when the clock passes the cycle end', async () => {
    const accountId = await subscribedAccount('growth');
    await b.useCredits(accountId, 5);
    const start = await b.account(accountId);
    const cycle = billingCycleAt(start.billingAnchor, start.cycleStart);

    expect(await scheduleDowngrade(em(), b.billing, accountId, 'starter')).toEqual({ plan: 'starter', kind: 'downgrade', effectiveAt: cycle.end.toISOString() });
    await b.settled();
    expect((await billingOverview(em(), b.billing, accountId)).pendingChange).toEqual({ plan: 'starter', kind: 'downgrade', effectiveAt: cycle.end.toISOString() });
    expect((await b.account(accountId)).plan).toBe('growth');

    await revokePendingChange(em(), b.billing, accountId);
    await b.settled();
    expect((await billingOverview(em(), b.billing, accountId)).pendingChange).toBeNull();
    expect((await b.billing.retrieveSubscription(start.stripeSubscriptionId!)).schedule).toBeNull();

    await scheduleDowngrade(em(), b.billing, accountId, 'starter');
    await b.settled();
    await b.advanceClockTo(new Date(cycle.end.getTime() + 3600_000));
    const after = await b.account(accountId);
    expect(after).toMatchObject({ plan: 'starter', creditsUsed: 0, creditLimit: 50, pendingPlan: null, subscriptionStatus: 'active' });
    expect(after.cycleStart.toISOString()).toBe(cycle.end.toISOString());
    const resets = (await b.ledger(accountId)).filter((row) => row.kind === 'cycle_reset');
    expect(resets).toEqual([{ kind: 'cycle_reset', used_delta: -5, limit_after: 50, note: 'new cycle on starter' }]);
    const renewal = b.events('invoice.paid').at(-1)!.data.object;
    expect(renewal).toMatchObject({ billing_reason: 'subscription_cycle', amount_paid: 4_900 });
  });

  it('cancellation: pending as Free, then back on Free when the period ends', async () => {
    const accountId = await subscribedAccount('starter');
    const start = await b.account(accountId);
    const cycle = billingCycleAt(start.billingAnchor, start.cycleStart);
    expect(await cancelSubscription(em(), b.billing, accountId)).toMatchObject({ plan: 'free', kind: 'cancellation' });
    await b.settled();
    expect((await b.account(accountId)).pendingPlan).toBe('free');
    await b.advanceClockTo(new Date(cycle.end.getTime() + 60_000));
    expect(await b.account(accountId)).toMatchObject({ plan: 'free', creditLimit: 3, creditsUsed: 0, stripeSubscriptionId: null, pendingPlan: null });
  });

  it('account deletion ends the subscription at once: back on Free, no further charge', async () => {
    const accountId = await subscribedAccount('growth');
    const subscriptionId = (await b.account(accountId)).stripeSubscriptionId!;
    await cancelSubscriptionNow(em(), b.billing, accountId);
    await b.settled();
    expect(await b.account(accountId)).toMatchObject({ plan: 'free', stripeSubscriptionId: null, creditLimit: 3 });
    expect((await b.billing.retrieveSubscription(subscriptionId)).status).toBe('canceled');
    const invoicesBefore = b.events('invoice.paid').length;
    await b.advanceClockTo(new Date(Date.now() + 40 * DAY_MS));
    expect(b.events('invoice.paid')).toHaveLength(invoicesBefore);
    // A second call (a retried deletion step) is a no-op.
    await cancelSubscriptionNow(em(), b.billing, accountId);
  });
});
