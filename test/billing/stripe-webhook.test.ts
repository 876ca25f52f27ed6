import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import Stripe from 'stripe';
import { billingOverview, cancelSubscriptionNow, scheduleDowngrade, startCheckout, upgrade } from '../../services/billing/billing.ts';
import type { SandboxEvent } from '../../sandbox/stripe/world.ts';
import { CHECKOUT_URLS, clickCheckout, startBillingStack, type BillingStack } from './billing-stack.ts';

// POST /webhooks/stripe: Stripe's signature on the raw body, each event applied
// once (its id stored with its effect), retries and any order tolerated, the
// subscription re-read from Stripe instead of trusting the event's copy.

let b: BillingStack;

beforeAll(async () => {
  b = await startBillingStack();
});
afterAll(() => b?.stop());
beforeEach(async () => {
  await b.resetStripe();
  Object.assign(b.stripe.webhooks.settings, { url: b.webhookUrl, order: 'in_order', duplicate: false });
});

const em = () => b.stack.orm.em.fork();

function post(body: string, signature: string | null) {
  return fetch(b.webhookUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'stripe-signature': signature }) }, body });
}

/** Signed as Stripe signs, with the SDK's own test helper (not the stand-in's signer). */
function signed(payload: string, options: { secret?: string; timestamp?: number } = {}) {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? b.webhookSecret, timestamp: options.timestamp });
}

async function paidGrowth(): Promise<number> {
  const accountId = await b.stack.createAccount('free');
  const { url } = await startCheckout(em(), b.billing, accountId, 'growth', CHECKOUT_URLS);
  await clickCheckout(url, 'Pay');
  await b.settled();
  return accountId;
}

/** Stripe-shaped event around a stand-in event's object, with a new id. */
function copyOf(event: SandboxEvent, id: string): string {
  return JSON.stringify({ ...event, id });
}

describe('signature', () => {
  it('a valid signature is accepted; tampered, foreign, missing or old ones are 400 and change nothing', async () => {
    const accountId = await paidGrowth();
    const created = b.events('customer.subscription.created').at(-1)!;
    const payload = copyOf(created, 'evt_signature_probe');
    const applied = (await b.appliedEvents()).length;
    const ledger = await b.ledger(accountId);

    const tampered = await post(payload.replace('"active"', '"canceled"'), signed(payload));
    const foreign = await post(payload, signed(payload, { secret: 'whsec_someone_else' }));
    const missing = await post(payload, null);
    const garbage = await post(payload, 't=1,v1=deadbeef');
    // Stripe's libraries refuse timestamps older than 5 minutes (replayed captures).
    const old = await post(payload, signed(payload, { timestamp: Math.floor(Date.now() / 1000) - 600 }));
    for (const reply of [tampered, foreign, missing, garbage, old]) {
      expect(reply.status).toBe(400);
      expect((await reply.json()).error).toBe('invalid_request');
    }
    expect(await b.appliedEvents()).toHaveLength(applied);
    expect(await b.ledger(accountId)).toEqual(ledger);

    const good = await post(payload, signed(payload));
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ received: true, outcome: 'applied' });
    expect((await b.appliedEvents()).find((row) => row.id === 'evt_signature_probe')).toMatchObject({ type: 'customer.subscription.created', account_id: accountId });
  });

  it('an event type we do not handle is 200 and ignored', async () => {
    const payload = JSON.stringify({ id: 'evt_unknown_type', object: 'event', type: 'charge.dispute.created', created: Math.floor(Date.now() / 1000), data: { object: { id: 'dp_1', object: 'dispute' } }, livemode: false, api_version: '2026-10-28.endive', pending_webhooks: 1, request: { id: null, idempotency_key: null } });
    const reply = await post(payload, signed(payload));
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ received: true, outcome: 'ignored' });
    expect((await b.appliedEvents()).some((row) => row.id === 'evt_unknown_type')).toBe(false);
  });
});

describe('each event once, in any order', () => {
  it('every event delivered twice (as Stripe may) is applied once', async () => {
    b.stripe.webhooks.settings.duplicate = true;
    const accountId = await paidGrowth();
    const deliveries = [...b.stripe.webhooks.records.values()];
    expect(deliveries.every((record) => record.state === 'delivered' && record.attempts.length === 2)).toBe(true);
    expect(await b.account(accountId)).toMatchObject({ plan: 'growth', creditLimit: 203 });
    expect((await b.ledger(accountId)).filter((row) => row.kind === 'plan_change')).toHaveLength(1);
    const ids = (await b.appliedEvents()).map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('the same event sent ten times at once: one applies, the others find it applied', async () => {
    const accountId = await b.stack.createAccount('free');
    // Held back: the checkout's events are recorded by the stand-in but not sent.
    b.stripe.webhooks.settings.url = null;
    const { url } = await startCheckout(em(), b.billing, accountId, 'starter', CHECKOUT_URLS);
    await clickCheckout(url, 'Pay');
    const completed = b.events('checkout.session.completed').at(-1)!;
    const payload = JSON.stringify(completed);
    const replies = await Promise.all(Array.from({ length: 10 }, () => post(payload, signed(payload)).then((reply) => reply.json())));
    expect(replies.filter((reply) => reply.outcome === 'applied')).toHaveLength(1);
    expect(replies.filter((reply) => reply.outcome === 'duplicate')).toHaveLength(9);
    expect(await b.account(accountId)).toMatchObject({ plan: 'starter', creditLimit: 53 });
    expect((await b.ledger(accountId)).filter((row) => row.kind === 'plan_change')).toHaveLength(1);
  });

  it('events delivered in reverse order lead to the same state', async () => {
    b.stripe.webhooks.settings.order = 'reverse';
    const accountId = await paidGrowth();
    const delivered = [...b.stripe.webhooks.records.values()].map((record) => record.type);
    expect(delivered.indexOf('checkout.session.completed')).toBeLessThan(delivered.indexOf('customer.subscription.created'));
    const account = await b.account(accountId);
    const subscription = await b.billing.retrieveSubscription(account.stripeSubscriptionId!);
    expect(account).toMatchObject({ plan: 'growth', creditLimit: 203, creditsUsed: 0, subscriptionStatus: 'active' });
    expect(account.cycleStart.toISOString()).toBe(subscription.periodStart.toISOString());
    expect((await b.ledger(accountId)).filter((row) => row.kind === 'plan_change')).toHaveLength(1);
  });

  it('an endpoint that fails is retried until it takes the event', async () => {
    const accountId = await b.stack.createAccount('free');
    b.stripe.webhooks.settings.url = `${b.stack.apiUrl}/no-such-endpoint`;
    const { url } = await startCheckout(em(), b.billing, accountId, 'growth', CHECKOUT_URLS);
    await clickCheckout(url, 'Pay');
    // Endpoint back after the first failed attempts (404 from our API).
    await new Promise((resolve) => setTimeout(resolve, 150));
    b.stripe.webhooks.settings.url = b.webhookUrl;
    await b.settled();
    const records = [...b.stripe.webhooks.records.values()];
    expect(records.every((record) => record.state === 'delivered')).toBe(true);
    expect(records.some((record) => record.attempts.length > 1 && record.attempts[0]!.status === 404)).toBe(true);
    expect(await b.account(accountId)).toMatchObject({ plan: 'growth' });
  });
});

describe('replays', () => {
  it('a replayed old event (same id, or a stale copy under a new id) does not undo later changes', async () => {
    const accountId = await paidGrowth();
    const account = await b.account(accountId);
    const subscriptionCreated = b.events('customer.subscription.created').at(-1)!;
    const checkoutCompleted = b.events('checkout.session.completed').at(-1)!;
    // Later: cancelled at the period's end, which then passes: the account is back on Free.
    await fetch(`${b.stripe.url}/v1/subscriptions/${account.stripeSubscriptionId}`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_billing_suite', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'cancel_at_period_end=true',
    });
    await b.settled();
    const periodEnd = (await b.billing.retrieveSubscription(account.stripeSubscriptionId!)).periodEnd;
    await b.advanceClockTo(new Date(periodEnd.getTime() + 60_000));
    const free = await b.account(accountId);
    expect(free).toMatchObject({ plan: 'free', stripeSubscriptionId: null });
    const ledger = await b.ledger(accountId);

    // Stripe's "resend": same id, fresh signature.
    for (const event of [subscriptionCreated, checkoutCompleted]) {
      const replay = await post(JSON.stringify(event), signed(JSON.stringify(event)));
      expect(await replay.json()).toEqual({ received: true, outcome: 'duplicate' });
    }
    // A stale copy with an id never seen: applied, but from Stripe's current state, which is "ended".
    const stale = copyOf(subscriptionCreated, 'evt_stale_copy_of_created');
    expect(await (await post(stale, signed(stale))).json()).toEqual({ received: true, outcome: 'applied' });
    expect(await b.account(accountId)).toMatchObject({ plan: 'free', creditLimit: free.creditLimit, stripeSubscriptionId: null });
    expect(await b.ledger(accountId)).toEqual(ledger);
  });
});

// Credits follow what Stripe billed, however late or out of order
// the events come; and an event about a subscription Stripe no longer has is
// acknowledged without changing anything.

/** Checkout to Starter, then an upgrade to Growth made in Stripe: the same history each time. */
async function starterThenGrowth(accountId: number, options: { betweenSteps?: () => Promise<void> } = {}): Promise<void> {
  const { url } = await startCheckout(em(), b.billing, accountId, 'starter', CHECKOUT_URLS);
  await clickCheckout(url, 'Pay');
  await options.betweenSteps?.();
  const sub = [...b.stripe.world.subscriptions.values()].at(-1)!;
  const updated = await b.billing.upgrade({ subscription: await b.billing.retrieveSubscription(sub.id), plan: 'growth' });
  expect(b.billing.planFor(updated.priceId)).toBe('growth');
}

/** Every event Stripe emitted so far, delivered now in the order given (held back until then). */
async function deliverHeld(order: (events: SandboxEvent[]) => SandboxEvent[]): Promise<void> {
  b.stripe.webhooks.settings.url = b.webhookUrl;
  for (const event of order(b.events())) b.stripe.webhooks.resend(event);
  await b.settled();
}

describe('credits follow what Stripe billed, however late its events arrive', () => {
  it('in order: Checkout to Starter gives 53, the upgrade to Growth adds 200 (253)', async () => {
    const accountId = await b.stack.createAccount('free');
    await starterThenGrowth(accountId, {
      async betweenSteps() {
        await b.settled();
        expect(await b.account(accountId)).toMatchObject({ plan: 'starter', creditLimit: 53 });
      },
    });
    await b.settled();
    expect(await b.account(accountId)).toMatchObject({ plan: 'growth', creditLimit: 253, creditsUsed: 0 });
    expect((await b.ledger(accountId)).map((row) => [row.kind, row.limit_after])).toEqual([['plan_change', 53], ['plan_change', 253]]);
  });

  for (const [name, order] of [
    ['all held back and delivered after the upgrade', (events: SandboxEvent[]) => events],
    ['held back and delivered newest first', (events: SandboxEvent[]) => [...events].reverse()],
    ['held back and delivered shuffled', (events: SandboxEvent[]) => [...events].sort((x, y) => x.id.localeCompare(y.id))],
  ] as const) {
    it(`${name}: the same 253 credits and the same ledger`, async () => {
      const accountId = await b.stack.createAccount('free');
      b.stripe.webhooks.settings.url = null;
      await starterThenGrowth(accountId);
      expect(await b.account(accountId)).toMatchObject({ plan: 'free', stripeSubscriptionId: null });
      await deliverHeld(order);
      const account = await b.account(accountId);
      expect(account).toMatchObject({ plan: 'growth', creditLimit: 253, creditsUsed: 0, subscriptionStatus: 'active' });
      const subscription = await b.billing.retrieveSubscription(account.stripeSubscriptionId!);
      expect(account.cycleStart.toISOString()).toBe(subscription.periodStart.toISOString());
      expect((await b.ledger(accountId)).map((row) => [row.kind, row.limit_after, row.note])).toEqual([
        ['plan_change', 53, 'subscribed to starter: 3 carried over + 50 for the new cycle'],
        ['plan_change', 253, 'upgrade to growth: 53 carried over + 200 prorated'],
      ]);
    });
  }

  it('held back past the next renewal and delivered newest first: the renewal\'s cycle on Growth, as in order', async () => {
    const accountId = await b.stack.createAccount('free');
    b.stripe.webhooks.settings.url = null;
    await starterThenGrowth(accountId);
    const sub = [...b.stripe.world.subscriptions.values()].at(-1)!;
    await b.advanceClockTo(new Date((sub.item.periodEnd + 3600) * 1000));
    await deliverHeld((events) => [...events].reverse());
    const account = await b.account(accountId);
    const subscription = await b.billing.retrieveSubscription(sub.id);
    expect(account).toMatchObject({ plan: 'growth', creditLimit: 200, creditsUsed: 0 });
    expect(account.cycleStart.toISOString()).toBe(subscription.periodStart.toISOString());
    const grants = (await b.ledger(accountId)).filter((row) => row.kind === 'plan_change').map((row) => row.limit_after);
    expect(grants).toEqual([53, 253]);
  });

  it('what the app reads: the paid invoices oldest first, paged as Stripe pages them (limit, starting_after, status)', async () => {
    const accountId = await b.stack.createAccount('free');
    await starterThenGrowth(accountId);
    await b.settled();
    const sub = [...b.stripe.world.subscriptions.values()].at(-1)!.id;
    const billed = await b.billing.listPaidInvoices(sub);
    expect(billed.map((invoice) => [invoice.billingReason, b.billing.planFor(invoice.priceId)])).toEqual([['subscription_create', 'starter'], ['subscription_update', 'growth']]);
    const list = (query: string) => fetch(`${b.stripe.url}/v1/invoices?subscription=${sub}&${query}`, { headers: { authorization: 'Bearer sk_test_billing_suite' } }).then((reply) => reply.json());
    const first = await list('status=paid&limit=1');
    expect([first.data.map((invoice: { id: string }) => invoice.id), first.has_more]).toEqual([[billed[1]!.id], true]);
    const second = await list(`status=paid&limit=1&starting_after=${billed[1]!.id}`);
    expect([second.data.map((invoice: { id: string }) => invoice.id), second.has_more]).toEqual([[billed[0]!.id], false]);
    expect((await list('status=open')).data).toEqual([]);
  });

  it('an upgrade whose payment was declined adds nothing until Stripe is paid', async () => {
    const accountId = await b.stack.createAccount('free');
    b.stripe.webhooks.settings.url = null;
    const { url } = await startCheckout(em(), b.billing, accountId, 'starter', CHECKOUT_URLS);
    await clickCheckout(url, 'Pay');
    const sub = [...b.stripe.world.subscriptions.values()].at(-1)!;
    b.stripe.world.failNextPayment();
    const pending = await b.billing.upgrade({ subscription: await b.billing.retrieveSubscription(sub.id), plan: 'growth' });
    expect(pending.hasPendingUpdate).toBe(true);
    await deliverHeld((events) => [...events].reverse());
    expect(await b.account(accountId)).toMatchObject({ plan: 'starter', creditLimit: 53 });
  });
});

describe('an event about a subscription Stripe no longer has', () => {
  /** The warnings the webhook route logged while `run` ran. */
  async function warningsDuring(run: () => Promise<void>): Promise<string[]> {
    const warn = vi.spyOn(b.stack.logger, 'warn');
    try {
      await run();
      return warn.mock.calls.map((call) => String(call.at(-1)));
    } finally {
      warn.mockRestore();
    }
  }

  async function gone(capture: () => SandboxEvent): Promise<string> {
    const event = capture();
    // Stripe forgets everything (as after deleting test data); the event stays validly signed.
    await b.resetStripe();
    return JSON.stringify(event);
  }

  it('customer.subscription.updated: 200, nothing changes, a redelivery is a duplicate', async () => {
    const accountId = await paidGrowth();
    const sub = (await b.account(accountId)).stripeSubscriptionId!;
    await b.billing.setCancelAtPeriodEnd(sub, true);
    await b.settled();
    const before = await b.account(accountId);
    const ledger = await b.ledger(accountId);
    const payload = await gone(() => b.events('customer.subscription.updated').at(-1)!);
    const copy = copyOf(JSON.parse(payload) as SandboxEvent, 'evt_gone_subscription_updated');
    const warnings = await warningsDuring(async () => {
      const first = await post(copy, signed(copy));
      expect([first.status, await first.json()]).toEqual([200, { received: true, outcome: 'ignored' }]);
      const again = await post(copy, signed(copy));
      expect([again.status, await again.json()]).toEqual([200, { received: true, outcome: 'duplicate' }]);
    });
    // Logged once, for the first delivery; the redelivery is a duplicate like any other.
    expect(warnings.filter((message) => message.includes('Stripe no longer has'))).toHaveLength(1);
    expect(await b.account(accountId)).toEqual(before);
    expect(await b.ledger(accountId)).toEqual(ledger);
    expect((await b.appliedEvents()).find((row) => row.id === 'evt_gone_subscription_updated')).toMatchObject({ account_id: accountId });
  });

  it('the Billing page still opens and says so; plan changes are refused with the reason; deleting the account cancels nothing', async () => {
    const accountId = await paidGrowth();
    await b.settled();
    const before = await b.account(accountId);
    await b.resetStripe();
    const overview = await billingOverview(em(), b.billing, accountId);
    expect(overview).toMatchObject({ plan: 'growth', subscriptionStatus: 'missing', credits: { limit: before.creditLimit } });
    expect(overview.plans.map((plan) => plan.upgrade)).toEqual([null, null, null, null]);
    for (const change of [() => scheduleDowngrade(em(), b.billing, accountId, 'starter'), () => upgrade(em(), b.billing, accountId, 'scale')]) {
      await expect(change()).rejects.toMatchObject({ code: 'plan_change_not_allowed', message: expect.stringContaining('Stripe no longer has') });
    }
    await expect(cancelSubscriptionNow(em(), b.billing, accountId)).resolves.toBeUndefined();
    expect(await b.account(accountId)).toEqual(before);
  });

  it('checkout.session.completed of a Free account: 200, the account stays on Free', async () => {
    const accountId = await b.stack.createAccount('free');
    b.stripe.webhooks.settings.url = null;
    const { url } = await startCheckout(em(), b.billing, accountId, 'starter', CHECKOUT_URLS);
    await clickCheckout(url, 'Pay');
    const before = await b.account(accountId);
    const payload = await gone(() => b.events('checkout.session.completed').at(-1)!);
    const warnings = await warningsDuring(async () => {
      const reply = await post(payload, signed(payload));
      expect([reply.status, await reply.json()]).toEqual([200, { received: true, outcome: 'ignored' }]);
    });
    expect(warnings.filter((message) => message.includes('Stripe no longer has'))).toHaveLength(1);
    expect(await b.account(accountId)).toEqual(before);
    expect(before).toMatchObject({ plan: 'free', stripeSubscriptionId: null });
    expect(await b.ledger(accountId)).toEqual([]);
  });
});
