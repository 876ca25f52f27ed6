import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibleDescription, holdRequests, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { DashboardClient, linkIn } from '../../scripts/lib/dashboard-client.ts';
import { requestsAbout } from '../insights/insight-helpers.ts';
import type { TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { samplePerson, type TestStack } from '../helpers/test-stack.ts';
import { startDashboardSuite, type DashboardSuite } from '../helpers/dashboard-suite.ts';

// A person reading the dashboard: every element is found by its role and its label.
let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${Date.now()}-${counter++}@example.com`;
const PASSWORD = 'a long enough passphrase';
const findings: Record<string, string[]> = {};

let suite: DashboardSuite;
beforeAll(async () => {
  suite = await startDashboardSuite();
  ({ stack, mail, browser } = suite);
}, 180_000);
afterAll(async () => {
  await suite?.stop();
});

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: stack.apiUrl, reducedMotion: 'reduce' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.apiUrl });
  return { context, page: await context.newPage() };
}

/** Every page the tests visit is scanned; the last test asserts that none had a serious finding. */
async function scan(page: Page, name: string): Promise<void> {
  findings[name] = await seriousAccessibilityFindings(page);
}

/**
 * Clicks `button` and holds back the timers the click sets (a "Copied" that turns back after 3 s) until the returned
 * function runs them, so that a scan of the state it shows (every rule, then every button hovered, focused and
 * pressed) is not cut short by it on a busy machine. The page's later timers (axe's own) run as usual.
 */
async function clickHoldingItsTimers(page: Page, button: Locator, shown: Locator): Promise<() => Promise<void>> {
  await page.evaluate(() => {
    const held: Array<() => void> = [];
    const original = window.setTimeout;
    Object.assign(window, { heldTimers: held, originalSetTimeout: original });
    window.setTimeout = ((handler: () => void, _delay?: number, ...args: unknown[]) => {
      held.push(() => handler(...(args as [])));
      return 0;
    }) as typeof window.setTimeout;
  });
  await button.click();
  await shown.waitFor();
  await page.evaluate(() => {
    window.setTimeout = (window as unknown as { originalSetTimeout: typeof window.setTimeout }).originalSetTimeout;
  });
  return async () => {
    await page.evaluate(() => (window as unknown as { heldTimers: Array<() => void> }).heldTimers.forEach((run) => run()));
  };
}

async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/app/sign-in');
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
}

describe('the dashboard in Chromium', () => {
  it('sign up, verify by the e-mailed link, create a key from a product URL, watch a job live, revoke the key', async () => {
    const { context, page } = await newPage();
    const email = uniqueEmail('journey');

    await page.goto('/app/sign-up');
    // The page's own code loads after the frame: scanned once it is there.
    await page.getByRole('heading', { name: 'Create your account', level: 1 }).waitFor();
    await scan(page, 'sign-up');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('too short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => accessibleDescription(page.getByRole('textbox', { name: 'Password', exact: true }))).toContain('Use at least 12 characters.');
    expect(await page.getByLabel('E-mail').inputValue()).toBe(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').filter({ hasText: 'Check your inbox' }).waitFor();

    const verification = await mail.waitForMessage(email, (message) => /verify/i.test(message.subject));
    await page.goto(linkIn(verification.text));
    await page.getByRole('heading', { name: 'E-mail address verified' }).waitFor();
    await scan(page, 'verified');
    await page.getByRole('link', { name: 'Go to your API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    await dialog.getByLabel('Product URL').fill('not a url');
    await dialog.getByRole('button', { name: 'Read product page' }).click();
    await expect.poll(() => accessibleDescription(dialog.getByLabel('Product URL'))).toContain('Enter a web address starting with http:// or https://.');
    await dialog.getByLabel('Product URL').fill(`${stack.model.origin}/products/pipeline-pilot/`);
    // Each button that waits on the server is scanned while it shows that it waits.
    let release = await holdRequests(page, '**/app/api/keys/draft');
    await dialog.getByRole('button', { name: 'Read product page' }).click();
    await dialog.locator('button[data-loading]').waitFor();
    await scan(page, 'create-key-reading');
    await release();
    const productName = dialog.getByLabel('Product name');
    await productName.waitFor();
    const draftedName = await productName.inputValue();
    expect(draftedName.length).toBeGreaterThan(0);
    expect(await dialog.getByLabel('Key features').inputValue()).not.toBe('');
    await scan(page, 'create-key-review');
    await screenshotForReadme(page, 'create-key');
    release = await holdRequests(page, '**/app/api/keys');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await dialog.locator('button[data-loading]').waitFor();
    await scan(page, 'create-key-creating');
    await release();

    const keyField = dialog.getByLabel('Your new API key');
    await keyField.waitFor();
    const key = await keyField.inputValue();
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{42}$/);
    const copied = dialog.getByRole('button', { name: 'Copied' });
    const turnBack = await clickHoldingItsTimers(page, dialog.getByRole('button', { name: 'Copy key' }), copied);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await scan(page, 'key-copied');
    expect(await copied.isVisible()).toBe(true);
    await turnBack();
    await dialog.getByRole('button', { name: 'Copy key' }).waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'You will not see this key again' }).waitFor();
    await scan(page, 'key-close-warning');
    await dialog.getByRole('button', { name: 'Close anyway' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const keysTable = page.getByRole('table', { name: 'API keys' });
    await keysTable.getByRole('rowheader', { name: draftedName }).waitFor();
    expect(await page.content()).not.toContain(key);
    await scan(page, 'keys');

    // Slow providers, so that the job is seen running before it completes.
    stack.providerWorld.setLatency({ '*': { meanMs: 1_500, jitterMs: 0 } });
    const person = samplePerson(stack, { knownTo: 'both' }, 3);
    const accepted = await stack.api.research(key, { email: person.email });
    expect(accepted.status).toBe(202);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
    const jobsTable = page.getByRole('table', { name: 'Research jobs' });
    await jobsTable.getByRole('link', { name: person.email }).click();
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    await page.getByRole('status').filter({ hasText: /…/ }).waitFor();
    await page.getByRole('list', { name: 'Stages' }).waitFor();
    await scan(page, 'job-running');
    await page.getByRole('heading', { name: 'Prospect', level: 2 }).waitFor({ timeout: 60_000 });
    stack.providerWorld.setLatency(null);
    expect(await page.evaluate(() => (window as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await page.getByRole('heading', { name: 'Company', level: 2 }).waitFor();
    await page.getByRole('heading', { name: 'Decision makers', level: 2 }).waitFor();
    await scan(page, 'job-completed');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
    await jobsTable.getByRole('link', { name: person.email }).waitFor();
    await scan(page, 'jobs');
    await screenshotForReadme(page, 'jobs');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('img', { name: 'Credits used per day, by key' }).waitFor();
    const dayTable = page.getByRole('table', { name: 'Credits per day (table)' });
    await dayTable.getByRole('rowheader', { name: new Date().toISOString().slice(0, 10) }).waitFor();
    await page.getByRole('table', { name: 'Credit ledger' }).getByRole('cell', { name: 'Used', exact: true }).first().waitFor();
    await scan(page, 'usage');
    await screenshotForReadme(page, 'usage');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: `Revoke ${draftedName}` }).click();
    const revokeDialog = page.getByRole('dialog', { name: 'Revoke API key' });
    await scan(page, 'revoke-dialog');
    await revokeDialog.getByRole('button', { name: `Revoke key ${draftedName}` }).click();
    await revokeDialog.waitFor({ state: 'hidden' });
    const revokedRow = keysTable.getByRole('row').filter({ has: page.getByRole('rowheader', { name: draftedName }) });
    await expect.poll(() => revokedRow.textContent()).toContain('revoked');
    const refused = await stack.api.research(key, { email: person.email });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_key');
    await context.close();
  }, 180_000);

  it('resets a forgotten password by the e-mailed link', async () => {
    const email = uniqueEmail('forgot');
    await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, 'the old passphrase');
    const { context, page } = await newPage();
    await page.goto('/app/sign-in');
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    await scan(page, 'sign-in');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    // The sign-in page has an E-mail field too: wait for the new page before typing.
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await scan(page, 'forgot-password');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('status').filter({ hasText: 'reset link is on its way' }).waitFor({ timeout: 10_000 }).catch(async (error: unknown) => {
      throw new Error(`no confirmation; the page says: ${await page.locator('main').innerText()}`, { cause: error });
    });

    const message = await mail.waitForMessage(email, (m) => /password/i.test(m.subject));
    await page.goto(linkIn(message.text));
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await scan(page, 'reset-password');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('status').filter({ hasText: 'Your password is changed' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(page, email);
    await context.close();
  }, 60_000);

  it('explains the key limit of the plan when it is reached', async () => {
    const email = uniqueEmail('limit');
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    await client.post('/app/api/keys', { name: 'Ledgerly', description: 'Bookkeeping', keyFeatures: ['ledgers'], targetCustomers: ['accountants'], productUrl: null });
    const { context, page } = await newPage();
    await signIn(page, email);
    const limit = page.getByRole('alert', { name: 'Key limit reached' });
    await limit.waitFor();
    expect(await limit.innerText()).toContain('The Free plan allows 1 active key');
    expect(await page.getByRole('button', { name: 'Create API key' }).isDisabled()).toBe(true);
    await scan(page, 'key-limit');
    await context.close();
  }, 60_000);

  it('writes the next job in the language chosen in preferences', async () => {
    const email = uniqueEmail('language');
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const { key } = (await client.post('/app/api/keys', { name: 'Fleetwise', description: 'Fleet telematics', keyFeatures: ['tracking'], targetCustomers: ['fleet managers'], productUrl: null })).body;
    const { context, page } = await newPage();
    await signIn(page, email);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Preferences' }).click();
    await page.getByLabel('Output language').selectOption('de');
    await scan(page, 'preferences');
    await page.getByRole('button', { name: 'Save preferences' }).click();
    await page.getByRole('status').filter({ hasText: 'German' }).waitFor();

    const person = samplePerson(stack, { knownTo: 'both' }, 5);
    const { research_id: researchId } = (await stack.api.research(key, { email: person.email })).body;
    expect((await stack.api.waitForEnd(key, researchId)).body.status).toBe('completed');
    const requests = requestsAbout(stack, person.fullName);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((request) => request.language === 'de')).toBe(true);
    await context.close();
  }, 90_000);

  it('keeps a lost connection on the page with a retry, never a blank page', async () => {
    const email = uniqueEmail('offline');
    await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const { context, page } = await newPage();
    await signIn(page, email);
    await context.route('**/app/api/usage', (route) => route.abort('internetdisconnected'));
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Usage' }).click();
    await page.getByRole('alert').filter({ hasText: 'could not reach the server' }).waitFor({ timeout: 20_000 });
    await scan(page, 'lost-connection');
    await context.unroute('**/app/api/usage');
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('table', { name: 'Credit ledger' }).waitFor();
    await context.close();
  }, 60_000);

  it('has no moderate, serious or critical accessibility finding on any page', () => {
    expect(Object.keys(findings).length).toBeGreaterThanOrEqual(10);
    expect(findings).toEqual(Object.fromEntries(Object.keys(findings).map((name) => [name, []])));
  });
});
