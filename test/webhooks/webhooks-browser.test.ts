import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { ensureDashboardBuilt, launchChromium, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startTestWebhooks, WEBHOOK_TEST_ENV, type TestWebhooks } from '../helpers/webhook-delivery.ts';

// Issue 19: the Webhooks page in Chromium, delivering to the receiver stand-in.
let stack: TestStack;
let mail: TestMailSandbox;
let webhooks: TestWebhooks;
let browser: Browser;
const PASSWORD = 'a long enough passphrase';

beforeAll(async () => {
  await ensureDashboardBuilt();
  mail = await startTestMailSandbox();
  stack = await startTestStack({ withWorker: false, apiEnv: { ...mail.env, ...WEBHOOK_TEST_ENV, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  webhooks = await startTestWebhooks(stack);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await webhooks?.stop();
  await stack?.stop();
  await mail?.close();
});

describe('the Webhooks page in Chromium', () => {
  it('adds an endpoint, reveals its secret, sends a test event that the receiver verifies, pauses, rotates, resends and deletes it after asking', async () => {
    const email = `hooks-${Date.now()}@example.com`;
    await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    // A private address is refused (only the receiver's 127.0.0.1 is allowed in tests), and so is plain http elsewhere.
    const urlField = page.getByRole('textbox', { name: 'Endpoint URL' });
    await urlField.fill('https://10.1.2.3/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'private, loopback or reserved address' }).waitFor();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await urlField.fill('http://example.com/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('alert').filter({ hasText: 'must be an https:// URL' }).waitFor();

    const url = `${webhooks.receiver.url}/hooks/browser`;
    await urlField.fill(url);
    await page.getByRole('checkbox', { name: 'research.failed' }).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const card = page.getByRole('region', { name: url });
    await card.waitFor();
    expect(await card.innerText()).toContain('Events: research.completed');
    expect(await card.innerText()).not.toContain('whsec_');

    await card.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = (await card.locator('code').filter({ hasText: 'whsec_' }).innerText()).trim();
    expect(secret).toMatch(/^whsec_/);
    webhooks.receiver.addSecret(secret);

    await card.getByRole('button', { name: 'Send test event' }).click();
    const deliveries = card.getByRole('table', { name: `Deliveries to ${url}` });
    await deliveries.getByText('Delivered').waitFor({ timeout: 20_000 });
    expect(await deliveries.getByRole('row').nth(1).innerText()).toMatch(/webhook\.test[\s\S]*1[\s\S]*204/);
    expect(webhooks.receiver.received('/hooks/browser')).toMatchObject([{ isVerified: true }]);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await screenshotForReadme(page, 'webhooks');

    // Resend: the same event id arrives again.
    await deliveries.getByRole('button', { name: /^Resend/ }).click();
    await expect.poll(() => webhooks.receiver.received('/hooks/browser').length, { timeout: 20_000 }).toBe(2);
    const [first, second] = webhooks.receiver.received('/hooks/browser');
    expect(second.webhookId).toBe(first.webhookId);

    // Rotation: the old secret keeps verifying for 24 h.
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await card.getByRole('status').filter({ hasText: 'The old one keeps signing beside it for 24 hours' }).waitFor();
    await card.getByText(/The previous secret also signs deliveries until/).waitFor();

    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByText('Paused', { exact: true }).waitFor();
    expect(await card.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByText('Active', { exact: true }).waitFor();

    // Deleting asks first; Cancel keeps the endpoint, the confirmation removes it and its deliveries.
    await card.getByRole('button', { name: 'Delete endpoint' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete webhook endpoint' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('This cannot be undone.');
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await card.waitFor();
    await card.getByRole('button', { name: 'Delete endpoint' }).click();
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByText('No endpoints yet.').waitFor();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await context.close();
  }, 120_000);
});
