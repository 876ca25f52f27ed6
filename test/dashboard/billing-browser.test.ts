import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../db/entities/index.ts';
import { startStripeSandbox, type StripeSandbox } from '../../sandbox/stripe/server.ts';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { ensureDashboardBuilt, launchChromium, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// A person pays on the Stripe stand-in's hosted page and the plan
// changes through the verified webhook; a downgrade waits for the cycle's end.
let stack: TestStack;
let stripe: StripeSandbox;
let mail: TestMailSandbox;
let browser: Browser;
const PASSWORD = 'a long enough passphrase';

beforeAll(async () => {
  await ensureDashboardBuilt();
  const webhookSecret = `whsec_test_${randomBytes(12).toString('hex')}`;
  stripe = await startStripeSandbox({ port: 0, webhookSecret, retryDelaysMs: [100, 300, 1_000] });
  mail = await startTestMailSandbox();
  stack = await startTestStack({
    withWorker: false,
    apiEnv: {
      ...mail.env,
      DASHBOARD_MODE: 'dist',
      AUTH_CLIENT_IP_HEADER: 'x-real-ip',
      STRIPE_SECRET_KEY: 'sk_test_dashboard_billing',
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_API_BASE: stripe.url,
    },
  });
  stripe.webhooks.settings.url = `${stack.apiUrl}/webhooks/stripe`;
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await stripe?.close();
  await mail?.close();
});

describe('billing in Chromium', () => {
  it('Free → Growth through Checkout, then a downgrade shown as pending and applied at the cycle end', async () => {
    const email = `payer-${Date.now()}@example.com`;
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const accountId = (await client.get('/app/api/me')).body.accountId as number;
    const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    // One credit used on Free before paying: after Checkout starts a new cycle it stays readable on Usage.
    const { key } = (await client.post('/app/api/keys', { name: 'Ledgerly', description: 'Bookkeeping', keyFeatures: ['ledgers'], targetCustomers: ['accountants'], productUrl: null })).body;
    expect((await stack.api.research(key, { email: 'cfo@ledger-customer.example' })).status).toBe(202);
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Billing' }).click();
    const plans = page.getByRole('table', { name: 'Plans' });
    await plans.getByRole('columnheader', { name: 'Free (current)' }).waitFor();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotForReadme(page, 'billing');

    // A cancelled Checkout changes nothing.
    await plans.getByRole('button', { name: 'Upgrade to Growth' }).click();
    await page.getByRole('dialog', { name: 'Upgrade to Growth' }).getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('status').filter({ hasText: 'Checkout was cancelled' }).waitFor();
    expect((await stack.orm.em.fork().findOneOrFail(Account, accountId)).plan).toBe('free');

    await plans.getByRole('button', { name: 'Upgrade to Growth' }).click();
    const dialog = page.getByRole('dialog', { name: 'Upgrade to Growth' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('$149.00');
    await dialog.getByRole('button', { name: 'Continue to payment' }).click();
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.getByRole('status').filter({ hasText: 'Payment confirmed: you are on the Growth plan' }).waitFor({ timeout: 30_000 });
    // The confirmation alone, not beside the "Stripe is confirming" notice.
    expect(await page.getByRole('main').getByRole('status').allInnerTexts()).toEqual([expect.stringContaining('Payment confirmed')]);
    // The confirmation says what was carried over (the 2 unused Free credits) and what the plan added.
    expect(await page.getByRole('main').getByRole('status').innerText()).toBe('Payment confirmed: you are on the Growth plan with 202 credits this cycle (2 carried over, 200 added).');
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    const upgraded = await stack.orm.em.fork().findOneOrFail(Account, accountId);
    expect(upgraded.plan).toBe('growth');
    // The new plan's credits plus the 2 unused Free credits (docs/decisions.md#plans; Checkout starts a new cycle).
    expect(upgraded.creditLimit).toBe(202);

    // Usage after the upgrade: the new cycle is empty, the previous one is a choice away, the ledger says what was carried over.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    const dayTable = page.getByRole('table', { name: 'Credits per day (table)' });
    await dayTable.getByText('Earlier cycles are in the Billing cycle list.').waitFor();
    const cycles = page.getByLabel('Billing cycle');
    const previous = (await cycles.locator('option').allInnerTexts()).find((label) => !label.includes('(current)'));
    expect(previous).toBeDefined();
    await cycles.selectOption({ label: previous! });
    await dayTable.getByRole('rowheader', { name: new Date().toISOString().slice(0, 10) }).waitFor();
    const grant = page.getByRole('table', { name: 'Credit ledger' }).getByRole('row').filter({ hasText: 'Granted: plan change' });
    expect(await grant.innerText()).toContain('2 carried over');
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Billing' }).click();

    await plans.getByRole('button', { name: 'Downgrade to Starter' }).click();
    await page.getByRole('dialog', { name: 'Downgrade to Starter' }).getByRole('button', { name: 'Confirm: Downgrade to Starter' }).click();
    await page.getByRole('status').filter({ hasText: /You move to Starter on/ }).waitFor();
    await page.getByRole('button', { name: 'Keep the Growth plan' }).waitFor();
    expect((await stack.orm.em.fork().findOneOrFail(Account, accountId)).plan).toBe('growth');

    const clock = await fetch(`${stripe.url}/__sandbox/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: new Date(Date.now() + 32 * 86_400_000).toISOString() }),
    });
    expect(clock.ok).toBe(true);
    await stripe.webhooks.idle();
    await expect.poll(async () => (await stack.orm.em.fork().findOneOrFail(Account, accountId)).plan, { timeout: 15_000 }).toBe('starter');
    await page.reload();
    await plans.getByRole('columnheader', { name: 'Starter (current)' }).waitFor();

    // Stripe loses the subscription (its test data deleted): the page still opens, says so, and offers no plan change.
    expect((await fetch(`${stripe.url}/__sandbox/reset`, { method: 'POST' })).ok).toBe(true);
    await page.reload();
    await page.getByRole('alert').filter({ hasText: 'Stripe no longer has your subscription' }).waitFor();
    expect(await plans.getByRole('button').count()).toBe(0);
    expect(await plans.getByText('Not available until support restores the subscription.').count()).toBe(3);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await context.close();
  }, 120_000);
});
