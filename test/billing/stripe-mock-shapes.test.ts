import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { ensureStripeMock, startStripeMock, type StripeMockServer } from '../../scripts/lib/stripe-mock.ts';
import { createStripeBilling, loadStripeConfig, type StripeBilling } from '../../integrations/stripe/index.ts';

// Each call of our billing client, once, against Stripe's own stripe-mock: it
// checks every request against Stripe's published OpenAPI description (paths,
// parameter names, enums) and answers 400 otherwise. It is stateless, so this
// proves the shape of what we send, not behaviour (test/billing/*-flow tests do that).

let mock: StripeMockServer;
let billing: StripeBilling;

beforeAll(async () => {
  const binary = ensureStripeMock(ROOT);
  mock = await startStripeMock(binary, await freePort(), join(process.env.TEST_WORK_DIR ?? tmpdir(), 'stripe-mock.log'));
  const config = loadStripeConfig({
    STRIPE_SECRET_KEY: 'sk_test_123',
    STRIPE_WEBHOOK_SECRET: 'whsec_test',
    STRIPE_PRICE_STARTER: 'price_starter',
    STRIPE_PRICE_GROWTH: 'price_growth',
    STRIPE_PRICE_SCALE: 'price_scale',
    STRIPE_API_BASE: mock.url,
  })!;
  // No retries: a refused request must show at once.
  billing = createStripeBilling(config, { maxNetworkRetries: 0 });
}, 15 * 60_000);
afterAll(() => mock?.process.stop());

describe('our Stripe requests, checked by stripe-mock against the OpenAPI description', () => {
  it('stripe-mock refuses a request that breaks the description (so the checks below can fail)', async () => {
    const error = await billing.stripe.subscriptions
      .update('sub_123', { proration_behavior: 'sometimes' as Stripe.SubscriptionUpdateParams.ProrationBehavior })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((error as Stripe.errors.StripeError).statusCode).toBe(400);
  });

  it('creates a customer and a Checkout session', async () => {
    const customerId = await billing.createCustomer({ accountId: 42, email: 'owner@example.com' });
    expect(customerId).toMatch(/^cus_/);
    const session = await billing.createCheckoutSession({ customerId, accountId: 42, plan: 'growth', successUrl: 'https://app.example.com/app/billing?checkout={CHECKOUT_SESSION_ID}', cancelUrl: 'https://app.example.com/app/billing' });
    expect(session.id).toMatch(/^cs_/);
    expect(session.url).toMatch(/^https?:\/\//);
  });

  it('retrieves a subscription, previews and makes an upgrade', async () => {
    const subscription = await billing.retrieveSubscription('sub_123');
    expect(subscription.id).toMatch(/^sub_/);
    const preview = await billing.previewUpgrade({ customerId: subscription.customerId, subscription, plan: 'scale', at: new Date() });
    expect(Number.isInteger(preview.amountDueCents)).toBe(true);
    const updated = await billing.upgrade({ subscription, plan: 'scale' });
    expect(updated.id).toMatch(/^sub_/);
  });

  it('lists a subscription\'s paid invoices (status, subscription, limit; auto-paged)', async () => {
    const billed = await billing.listPaidInvoices('sub_123');
    expect(Array.isArray(billed)).toBe(true);
  });

  it('schedules a downgrade and releases it', async () => {
    const subscription = await billing.retrieveSubscription('sub_123');
    const scheduleId = await billing.scheduleDowngrade({ subscription: { ...subscription, schedule: null }, plan: 'starter' });
    expect(scheduleId).toMatch(/^sub_sched_/);
    await billing.releaseSchedule(scheduleId);
  });

  it('cancels at the period end and revokes that', async () => {
    expect((await billing.setCancelAtPeriodEnd('sub_123', true)).id).toMatch(/^sub_/);
    expect((await billing.setCancelAtPeriodEnd('sub_123', false)).id).toMatch(/^sub_/);
  });

  it('ends a subscription at once', async () => {
    await billing.cancelNow('sub_123');
  });

  it('opens a Billing Portal session', async () => {
    expect(await billing.createPortalSession({ customerId: 'cus_123', returnUrl: 'https://app.example.com/app/billing' })).toMatch(/^https?:\/\//);
  });
});
