// The CRM page in Chromium when a run waits its turn (CRM_RUNS_PER_ACCOUNT, 1
// by default; docs/crm.md#runs-waiting-their-turn), by role and label, with
// an axe scan of each state: the owner presses Run now on one product (it
// runs, slow providers keep it going), then on another: the notice says the
// run is queued and next to start, the runs list shows it "Queued", "Next to
// start"; when the first run ends the queued one starts and completes by
// itself, the page following it without a reload.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { seriousAccessibilityFindings } from '../helpers/browser.ts';
import { newestRun, pressRunNow, startCrmBrowserSuite, type CrmBrowserSuite } from '../helpers/crm-browser.ts';
import { crmTestSettings } from '../helpers/crm-fixture.ts';

let suite: CrmBrowserSuite;
const PASSWORD = 'a long enough passphrase';
const product = (name: string) => ({ name, description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null });
const em = () => suite.em();

beforeAll(async () => {
  suite = await startCrmBrowserSuite();
}, 240_000);

afterAll(async () => {
  await suite?.stop();
});

async function expectAccessible(page: Page) {
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
}

type RunRow = { status: string; started_at: Date; finished_at: Date | null };
const runOf = async (runId: string): Promise<RunRow> => {
  const [row]: RunRow[] = await em().execute('select status, started_at, finished_at from crm_sync_run where id = ?', [runId]);
  return row!;
};

/** The Status cell of a run's row (the row's header cell is its start time). */
const statusOf = (row: ReturnType<typeof newestRun>) => row.getByRole('cell').first();

const QUEUED_NOTICE = "The run is queued. Next to start; it starts by itself when your account's running CRM run ends. Its results appear under Last runs.";
const STARTED_NOTICE = 'The run started. Its results appear under Last runs.';

describe('A CRM run waiting its turn, on the CRM page', () => {
  it('Run now while another product\u2019s run is running: queued, next to start; it starts and completes by itself when that run ends', async () => {
    const email = `crm-queue-${Date.now()}@example.com`;
    const client = await new DashboardClient(suite.stack.apiUrl).signUpAndVerify(suite.mail, email, PASSWORD);
    const accountId = (await client.get('/app/api/me')).body.accountId as number;
    const first = (await client.post('/app/api/keys', product('PipelineIQ'))).body.productId as number;
    // Growth: the CRM integration, and a second product.
    await em().execute(`update account set plan = 'growth', credit_limit = 1000 where id = ?`, [accountId]);
    const second = (await client.post('/app/api/keys', product('ForecastIQ'))).body.productId as number;
    const pipedrive = suite.portals.pipedrive;
    await pipedrive.connect(em(), accountId);
    for (const productId of [first, second]) await saveCrmSettings(em(), accountId, productId, crmTestSettings({ scoreProperty: pipedrive.scoreField, researchLimit: 1 }), new Date());

    const page = await suite.signIn(email, PASSWORD);
    await page.goto(`/app/crm/${first}`);
    await page.getByRole('heading', { name: 'PipelineIQ: schedule' }).waitFor();

    // Slow providers keep the first run's research going while the queued run is looked at.
    suite.stack.providerWorld.setLatency({ '*': { meanMs: 5_000 } });
    let running: { runId: string };
    let queued: { runId: string };
    try {
      running = await pressRunNow(page, first);
      expect(running).toMatchObject({ state: 'running', place: null });
      expect(await page.getByRole('status').filter({ hasText: 'The run started' }).innerText()).toBe(STARTED_NOTICE);
      await statusOf(newestRun(page)).getByText('Running', { exact: true }).waitFor({ timeout: 30_000 });

      // The other product, picked on the page.
      await page.getByRole('combobox', { name: 'Product' }).click();
      await page.getByRole('option', { name: 'ForecastIQ' }).click();
      await page.getByRole('heading', { name: 'ForecastIQ: schedule' }).waitFor();
      expect(await page.getByText('No runs yet.').count()).toBe(1);

      queued = await pressRunNow(page, second);
      expect(queued).toMatchObject({ state: 'queued', place: 1 });
      const notice = page.getByRole('status').filter({ hasText: 'The run is queued' });
      expect(await notice.innerText()).toBe(QUEUED_NOTICE);
      expect(await page.getByRole('status').filter({ hasText: 'The run started' }).count()).toBe(0);
      const status = statusOf(newestRun(page));
      await status.getByText('Queued', { exact: true }).waitFor({ timeout: 30_000 });
      expect(await status.getByText('Running', { exact: true }).count()).toBe(0);
      expect(await status.getByText(/^Next to start; /).innerText()).toBe("Next to start; it starts by itself when your account's running CRM run ends.");
      expect(await newestRun(page).getByRole('cell').nth(3).innerText()).toBe('0');
      await expectAccessible(page);

      // What was scanned was the queued state: the page still shows it, and the first run still holds the account's turn.
      expect(await notice.count()).toBe(1);
      expect(await status.getByText('Queued', { exact: true }).count()).toBe(1);
      expect([(await runOf(running.runId)).status, (await runOf(queued.runId)).status]).toEqual(['running', 'queued']);
      // Quicker providers from now on, still slow enough that the page's poll sees the queued run running.
      suite.stack.providerWorld.setLatency({ '*': { meanMs: 1_500 } });

      // The first run ends; the queued one starts by itself and the page, polling, follows it without a reload.
      await status.getByText('Running', { exact: true }).waitFor({ timeout: 180_000 });
      expect(await status.getByText('Queued', { exact: true }).count()).toBe(0);
      expect(await status.getByText(/^Next to start/).count()).toBe(0);
      // The notice follows the run: it no longer says it waits.
      await page.getByRole('status').filter({ hasText: 'The run started' }).waitFor({ timeout: 10_000 });
      expect(await page.getByRole('status').filter({ hasText: 'The run is queued' }).count()).toBe(0);
      await expectAccessible(page);
    } finally {
      suite.stack.providerWorld.setLatency(null);
    }

    const status = statusOf(newestRun(page));
    await status.getByText('Completed', { exact: true }).waitFor({ timeout: 180_000 });
    expect(await newestRun(page).getByRole('cell').nth(3).innerText()).toBe('1');
    expect(await page.getByRole('table', { name: 'Contacts of the last run' }).getByRole('row').filter({ hasText: 'Researched' }).count()).toBe(1);
    await expectAccessible(page);

    // One run at a time: the queued run started once the first had ended, and both completed.
    const [a, b] = [await runOf(running.runId), await runOf(queued.runId)];
    expect([a.status, b.status]).toEqual(['completed', 'completed']);
    expect(new Date(b.started_at).getTime()).toBeGreaterThanOrEqual(new Date(a.finished_at!).getTime());
  }, 600_000);
});
