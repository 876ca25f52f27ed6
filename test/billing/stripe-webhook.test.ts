import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { startCheckout } from '../../services/billing.ts';
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
