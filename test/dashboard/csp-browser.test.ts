// Every dashboard page under the Content-Security-Policy the API sends: no
// violation reported, Mantine's run-time styles applied by the page's nonce,
// and no other site may frame a page. In Chromium, by role and label.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityFindings } from '../helpers/browser.ts';
import { listCustomer, waitForListEnd, type ListCustomer } from '../helpers/lists.ts';
import type { TestMailSandbox } from '../helpers/mail-sandbox.ts';
import type { TestStack } from '../helpers/test-stack.ts';
import { startDashboardSuite, type DashboardSuite } from '../helpers/dashboard-suite.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;

let suite: DashboardSuite;
beforeAll(async () => {
  suite = await startDashboardSuite();
  ({ stack, mail, browser } = suite);
}, 180_000);
afterAll(async () => {
  await suite?.stop();
});

declare global {
  interface Window {
    cspViolations: string[];
  }
}

/**
 * A browser context whose pages record every CSP violation: the DOM's
 * `securitypolicyviolation` events (listened to before any script of the page
 * runs) and Chromium's console lines about the policy.
 */
async function watchedContext(): Promise<{ context: BrowserContext; page: Page; violations: () => Promise<string[]> }> {
  const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  await context.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener(
      'securitypolicyviolation',
      (event) => window.cspViolations.push(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`),
      true,
    );
  });
  const page = await context.newPage();
  const consoleLines: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) consoleLines.push(message.text());
  });
  return {
    context,
    page,
    // Events of pages left behind are in consoleLines; the current page's in both.
    violations: async () => [...new Set([...consoleLines, ...(await page.evaluate(() => window.cspViolations))])],
  };
}

/** Opens `path`, waits for its title heading, and returns what CSP and axe found there. */
async function visit(page: Page, path: string, heading: string | RegExp): Promise<{ axe: string[] }> {
  await page.goto(path);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  // Styles and images of late parts (charts, tables) load after the heading.
  await page.waitForTimeout(300);
  return { axe: await seriousAccessibilityFindings(page) };
}

async function customerWithData(): Promise<{ owner: ListCustomer; researchId: string; listId: string }> {
  const owner = await listCustomer(stack, mail, 'growth');
  const [listed, direct] = stack.providerWorld.world.samplePeople({}, 2);
  const { body } = await owner.client.post('/app/api/lists', { pasted: listed!.email, name: 'Fair attendees' });
  expect((await owner.client.post(`/app/api/lists/${body.list.id}/start`)).status).toBe(202);
  await waitForListEnd(owner.client, body.list.id);
  const accepted = await stack.api.research(owner.key, { email: direct!.email });
  await stack.api.waitForEnd(owner.key, accepted.body.research_id);
  return { owner, researchId: accepted.body.research_id, listId: body.list.id };
}

describe('the dashboard under its Content-Security-Policy', () => {
  it('every page loads with no violation, and Mantine styles by the nonce', async () => {
    const { owner, researchId, listId } = await customerWithData();
    const { context, page, violations } = await watchedContext();
    const findings: Record<string, string[]> = {};

    const reply = await page.goto('/app/sign-in');
    const policy = reply!.headers()['content-security-policy']!;
    expect(policy).toMatch(/script-src 'self';/);
    expect(policy).toMatch(/style-src 'self' 'nonce-[A-Za-z0-9+/]{22}==';/);
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).toContain("frame-ancestors 'none'");
    // Mantine's CSS variables come from a <style> element it writes at run time: applied only by the nonce.
    await page.getByRole('heading', { name: /sign in/i, level: 1 }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--mantine-color-blue-6').trim())).not.toBe('');
    // Each page gets its own nonce.
    const again = await context.request.get('/app/sign-in');
    expect(again.headers()['content-security-policy']).not.toBe(policy);

    const signedOut: Array<[string, string | RegExp]> = [
      ['/app/sign-in', /sign in/i],
      ['/app/sign-up', /create .*account/i],
      ['/app/forgot-password', /reset|forgot/i],
      ['/app/reset-password?token=not-a-real-token', /password/i],
    ];
    for (const [path, heading] of signedOut) findings[path] = (await visit(page, path, heading)).axe;

    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(owner.email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    const signedIn: Array<[string, string | RegExp]> = [
      ['/app/verified', /verified|confirmed/i],
      ['/app/keys', 'API keys'],
      ['/app/jobs', 'Jobs'],
      [`/app/jobs/${researchId}`, /.+/],
      ['/app/lists', 'Lists'],
      [`/app/lists/${listId}`, 'List Fair attendees'],
      ['/app/usage', /usage/i],
      ['/app/billing', /billing|plan/i],
      ['/app/crm', /crm/i],
      ['/app/webhooks', /webhooks/i],
      ['/app/preferences', /preferences/i],
      ['/app/account', /account/i],
    ];
    for (const [path, heading] of signedIn) findings[path] = (await visit(page, path, heading)).axe;

    // A dialog: Mantine's modal and its transitions set styles at run time.
    await page.goto('/app/keys');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByRole('dialog').waitFor();
    await page.waitForTimeout(300);
    findings['create key dialog'] = await seriousAccessibilityFindings(page);

    expect(await violations()).toEqual([]);
    expect(Object.entries(findings).filter(([, found]) => found.length > 0)).toEqual([]);
    await context.close();
  }, 300_000);

  it('no other site can frame a page', async () => {
    // A page of another origin (another port) framing the sign-in page.
    const framer = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end(`<iframe title="framed" src="${stack.apiUrl}/app/sign-in"></iframe>`);
    }).listen(0, '127.0.0.1');
    await once(framer, 'listening');
    const { context, page } = await watchedContext();
    try {
      await page.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`);
      await expect.poll(() => page.frames().length).toBe(2);
      const framed = page.frames()[1]!;
      await framed.waitForLoadState('load');
      // Chromium shows its error page in place of a page that refuses to be framed.
      expect(framed.url()).toMatch(/^chrome-error:/);
      expect(await framed.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
    } finally {
      await context.close();
      framer.close();
    }
  });
});
