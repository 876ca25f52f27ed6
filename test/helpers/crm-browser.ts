import type { EntityManager } from '@mikro-orm/postgresql';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { ensureDashboardBuilt, launchChromium, signInThroughPage } from './browser.ts';
import { startCrmPortals, type TestPortals } from './crm-portals.ts';
import { startTestCrmWorker, type TestCrmWorker } from './crm-worker.ts';
import { startTestMailSandbox, type TestMailSandbox } from './mail-sandbox.ts';
import { startTestStack, type TestStack } from './test-stack.ts';

/**
 * What a CRM page suite in Chromium runs on, started once per file: the
 * built dashboard, the mail sandbox (sign-up), the Pipedrive and Salesforce
 * stand-ins, the research stack, a CRM worker and a browser.
 */
export interface CrmBrowserSuite {
  stack: TestStack;
  mail: TestMailSandbox;
  portals: TestPortals;
  em(): EntityManager;
  /** Signs in in a browser context of its own, closed by `stop()`. */
  signIn(email: string, password: string): Promise<Page>;
  stop(): Promise<void>;
}

export async function startCrmBrowserSuite(): Promise<CrmBrowserSuite> {
  await ensureDashboardBuilt();
  const mail = await startTestMailSandbox();
  let stack: TestStack | null = null;
  const em = () => stack!.orm.em.fork();
  const portals = await startCrmPortals({ world: createWorld(), em });
  stack = await startTestStack({ apiEnv: { ...mail.env, ...portals.env, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  const crmWorker: TestCrmWorker = await startTestCrmWorker(stack, portals);
  const browser: Browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  const started = stack;
  return {
    stack: started,
    mail,
    portals,
    em,
    async signIn(email, password) {
      const { context, page } = await signInThroughPage(browser, started.apiUrl, { email, password });
      contexts.push(context);
      return page;
    },
    async stop() {
      for (const context of contexts) await context.close();
      await browser.close();
      await crmWorker.stop();
      await started.stop();
      await portals.stop();
      await mail.close();
    },
  };
}

/** The CRM page's runs table; its first row is the header's. */
export const runsTable = (page: Page) => page.getByRole('table', { name: 'Last runs' });
/** The newest run's row. */
export const newestRun = (page: Page) => runsTable(page).getByRole('row').nth(1);

/** Run now pressed: the button's answer, once the page lists the new run on top of the earlier ones. */
export async function pressRunNow(page: Page, productId: number): Promise<{ runId: string; state: string; place: number | null }> {
  const rowsBefore = await runsTable(page).getByRole('row').count();
  const [answer] = await Promise.all([
    page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith(`/app/api/crm/products/${productId}/run`)),
    page.getByRole('button', { name: 'Run now' }).click(),
  ]);
  expect(answer.status()).toBe(202);
  const started = (await answer.json()) as { runId: string; state: string; place: number | null };
  // The header's row and the new run's, or one more run than before.
  await expect.poll(() => runsTable(page).getByRole('row').count(), { timeout: 30_000 }).toBe(rowsBefore === 0 ? 2 : rowsBefore + 1);
  return started;
}
