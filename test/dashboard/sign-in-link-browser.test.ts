import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient, linkIn } from '../../scripts/lib/dashboard-client.ts';
import { COMMON_PASSWORD_MESSAGE } from '../../services/accounts/common-passwords.ts';
import { seriousAccessibilityFindings } from '../helpers/browser.ts';
import type { TestMailSandbox } from '../helpers/mail-sandbox.ts';
import type { TestStack } from '../helpers/test-stack.ts';
import { startDashboardSuite, type DashboardSuite } from '../helpers/dashboard-suite.ts';

// The sign-in page's ways in when the password cannot be used: the per-address
// limit that someone else's guesses used up, a sign-in link by e-mail, a used
// link, and a common password refused at sign-up. Found by role and label;
// every state is scanned with axe.
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

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: stack.apiUrl, reducedMotion: 'reduce' });
  return context.newPage();
}

describe('signing in without the password', () => {
  it('lets the owner in by an e-mailed link while guesses from elsewhere hold the address', async () => {
    const email = uniqueEmail('owner');
    await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    for (let attempt = 0; attempt < 11; attempt++) {
      await new DashboardClient(stack.apiUrl).call('POST', '/app/api/auth/sign-in/email', { email, password: 'wrong password guess' }, { 'x-real-ip': `192.0.2.${attempt + 1}` });
    }
    const page = await newPage();
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/sign in with a link sent to your e-mail/);
    findings['sign-in-address-limited'] = await seriousAccessibilityFindings(page);

    await page.getByRole('button', { name: 'E-mail me a sign-in link instead' }).click();
    await page.getByText('a sign-in link is on its way').waitFor();
    findings['sign-in-link-sent'] = await seriousAccessibilityFindings(page);

    const link = linkIn((await mail.waitForMessage(email, (message) => /sign-in link/i.test(message.subject))).text);
    await page.goto(link);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    // Opened a second time, the link brings the sign-in page back with a word on it.
    const again = await newPage();
    await again.goto(link);
    await again.getByText('That sign-in link has expired or was used already').waitFor();
    findings['sign-in-link-used'] = await seriousAccessibilityFindings(again);
    await page.context().close();
    await again.context().close();
  }, 90_000);

  it('says why a common password is refused at sign-up', async () => {
    const page = await newPage();
    await page.goto('/app/sign-up');
    await page.getByLabel('E-mail').fill(uniqueEmail('weak'));
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill('password1234');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText(COMMON_PASSWORD_MESSAGE).waitFor();
    findings['sign-up-common-password'] = await seriousAccessibilityFindings(page);
    await page.context().close();
  }, 60_000);

  it('has no serious or critical accessibility findings in any of these states', () => {
    expect(Object.keys(findings).sort()).toEqual(['sign-in-address-limited', 'sign-in-link-sent', 'sign-in-link-used', 'sign-up-common-password']);
    expect(findings).toEqual(Object.fromEntries(Object.keys(findings).map((name) => [name, []])));
  });
});
