import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { ensureDashboardBuilt, holdRequests, launchChromium, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startTestWebhooks, WEBHOOK_TEST_ENV, type TestWebhooks } from '../helpers/webhook-delivery.ts';

// The Webhooks page in Chromium, delivering to the receiver stand-in.
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

/** A new browser context signed in as `email`, on the Webhooks page. */
async function webhooksPageOf(email: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  await page.goto('/app/sign-in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
  return page;
}

describe('the Webhooks page in Chromium', () => {
  it('adds an endpoint, reveals its secret, sends a test event that the receiver verifies, pauses, rotates, resends and deletes it after asking', async () => {
    const email = `hooks-${Date.now()}@example.com`;
    await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const page = await webhooksPageOf(email);
    const context = page.context();
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

    // "Reveal secret" is scanned while it waits on the server, as every state of a button is.
    const release = await holdRequests(page, '**/app/api/webhooks/*/secret');
    await card.getByRole('button', { name: 'Reveal secret' }).click();
    await card.locator('button[data-loading]').waitFor();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await release();
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

  it('pages through an endpoint\'s deliveries, filters them by status, and resends one from the last page', async () => {
    const email = `hooks-paged-${Date.now()}@example.com`;
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const url = `${webhooks.receiver.url}/hooks/paged`;
    const created = await client.post('/app/api/webhooks', { url, events: ['research.completed'] });
    webhooks.receiver.addSecret((await client.post(`/app/api/webhooks/${created.body.endpoint.id}/secret`)).body.secret);
    // 60 ended deliveries a minute apart (msg_browser_00 the newest), every third failed.
    const idOf = (index: number) => `msg_browser_${String(index).padStart(2, '0')}`;
    await stack.orm.em.fork().execute(
      `insert into webhook_delivery (id, endpoint_id, account_id, event_type, payload, status, attempts, last_status_code, created_at, ended_at, workflow_started_at)
       select 'msg_browser_' || lpad(i::text, 2, '0'), e.id, e.account_id, 'webhook.test', '{"type":"webhook.test","timestamp":"2026-01-01T00:00:00.000Z","data":{"message":"old"}}',
              case when i % 3 = 0 then 'failed' else 'delivered' end, 1, case when i % 3 = 0 then 500 else 204 end, now() - i * interval '1 minute', now(), now()
         from webhook_endpoint e, generate_series(0, 59) as i where e.id = ?`,
      [created.body.endpoint.id],
    );

    const page = await webhooksPageOf(email);
    const card = page.getByRole('region', { name: url });
    const table = card.getByRole('table', { name: `Deliveries to ${url}` });
    await card.getByRole('status').filter({ hasText: 'Showing 1–25 of 60 deliveries' }).waitFor();
    expect(await table.getByRole('row').count()).toBe(26);
    expect(await table.getByRole('row').nth(1).innerText()).toMatch(/failed[\s\S]*500/i);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    await card.getByRole('button', { name: 'Deliveries page 3' }).click();
    await card.getByRole('status').filter({ hasText: 'Showing 51–60 of 60 deliveries' }).waitFor();
    expect(await table.getByRole('row').count()).toBe(11);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    // Resend from the last page: the oldest failed delivery goes out again, and is delivered this time.
    const release = await holdRequests(page, '**/app/api/webhook-deliveries/*/resend');
    await table.getByRole('button', { name: `Resend webhook.test ${idOf(57)}` }).click();
    await table.locator('button[data-loading]').waitFor();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await release();
    await expect.poll(() => webhooks.receiver.received('/hooks/paged').map((each) => [each.webhookId, each.answeredStatus]), { timeout: 20_000 }).toEqual([[idOf(57), 204]]);

    await card.getByLabel('Per page').selectOption('50');
    await card.getByRole('status').filter({ hasText: 'Showing 1–50 of 60 deliveries' }).waitFor();
    await card.getByLabel('Status').selectOption('failed');
    // 20 failed, less the one resent and delivered now.
    await card.getByRole('status').filter({ hasText: 'Showing 1–19 of 19 failed deliveries' }).waitFor({ timeout: 20_000 });
    expect(await table.getByRole('button', { name: `Resend webhook.test ${idOf(57)}` }).count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Deliveries page 2' }).count()).toBe(0);
    expect(await seriousAccessibilityFindings(page)).toEqual([]);

    await card.getByLabel('Status').selectOption('skipped');
    await card.getByRole('status').filter({ hasText: 'No skipped deliveries. Choose “Any status” to see the others.' }).waitFor();
    await table.waitFor({ state: 'detached' });
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await card.getByLabel('Status').selectOption({ label: 'Any status' });
    await card.getByRole('status').filter({ hasText: 'Showing 1–50 of 60 deliveries' }).waitFor();
    await page.context().close();
  }, 120_000);
});
