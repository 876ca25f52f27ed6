import type { EntityManager } from '@mikro-orm/postgresql';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { startCrmPortals, type TestPortals } from './crm-portals.ts';
import { startTestCrmWorker, type TestCrmWorker } from './crm-worker.ts';
import { startDashboardSuite, type DashboardSuite } from './dashboard-suite.ts';
import type { TestStack } from './test-stack.ts';

/** A dashboard suite with the Pipedrive and Salesforce stand-ins and a CRM worker beside it. */
export interface CrmBrowserSuite extends DashboardSuite {
  portals: TestPortals;
  em(): EntityManager;
}

export async function startCrmBrowserSuite(): Promise<CrmBrowserSuite> {
  let stack: TestStack | null = null;
  const em = () => stack!.orm.em.fork();
  const portals = await startCrmPortals({ world: createWorld(), em });
  const suite = await startDashboardSuite({ apiEnv: portals.env });
  stack = suite.stack;
  const crmWorker: TestCrmWorker = await startTestCrmWorker(suite.stack, portals);
  return {
    ...suite,
    portals,
    em,
    async stop() {
      // The CRM worker first: it works on the stack's database and Temporal queue.
      await crmWorker.stop();
      await suite.stop();
      await portals.stop();
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
