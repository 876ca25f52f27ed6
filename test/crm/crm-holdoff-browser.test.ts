// The CRM page in Chromium when a CRM will not take our calls, by role and
// label, with an axe scan of each state: Pipedrive's day of API tokens down to
// the reserve we leave the company (the preview says why and until when; a
// run started meanwhile shows "Running" with its "Waiting: …" line, and once
// the allowance is back it completes); a Pipedrive person deleted mid-run and
// a Salesforce Lead converted mid-run, each shown in the finished run's
// contacts as refused for good with the CRM's own words, no error code.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { saveCrmSettings, type CrmSettingsInput } from '../../services/crm/settings.ts';
import { seriousAccessibilityFindings } from '../helpers/browser.ts';
import { newestRun, pressRunNow, runsTable, startCrmBrowserSuite, type CrmBrowserSuite } from '../helpers/crm-browser.ts';
import { crmTestSettings } from '../helpers/crm-fixture.ts';
import type { TestPortal } from '../helpers/crm-portals.ts';
import { until } from '../helpers/until.ts';

let suite: CrmBrowserSuite;
const PASSWORD = 'a long enough passphrase';
const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };
const em = () => suite.em();

beforeAll(async () => {
  suite = await startCrmBrowserSuite();
}, 240_000);

afterAll(async () => {
  await suite?.stop();
});

/**
 * An owner signed up through the dashboard's API, on Growth, with a product
 * whose integration is connected to the stand-in and on (`settings`), signed
 * in in a browser of their own, on the product's CRM page.
 */
async function ownerOnCrmPage(portal: TestPortal, settings: Partial<CrmSettingsInput>): Promise<{ page: Page; accountId: number; productId: number }> {
  const email = `crm-holdoff-${portal.provider}-${Date.now()}@example.com`;
  const client = await new DashboardClient(suite.stack.apiUrl).signUpAndVerify(suite.mail, email, PASSWORD);
  const accountId = (await client.get('/app/api/me')).body.accountId as number;
  const productId = (await client.post('/app/api/keys', PRODUCT)).body.productId as number;
  await em().execute(`update account set plan = 'growth', credit_limit = 1000 where id = ?`, [accountId]);
  await portal.connect(em(), accountId);
  await saveCrmSettings(em(), accountId, productId, crmTestSettings({ scoreProperty: portal.scoreField, ...settings }), new Date());

  const page = await suite.signIn(email, PASSWORD);
  await page.goto(`/app/crm/${productId}`);
  await page.getByRole('heading', { name: `${portal.label} connection` }).waitFor();
  return { page, accountId, productId };
}

async function expectAccessible(page: Page) {
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
}

/** Times as the dashboard shows every time: UTC, said so. */
const shownTime = (at: Date) => `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at)} UTC`;
const nextMidnightUtc = () => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
};
/** A cell's text as its lines read, without the blank ones between its blocks. */
const shownLines = async (cell: Locator) => (await cell.innerText()).split('\n').filter((line) => line.trim() !== '').join('\n');
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Nothing a person reads carries our codes or an HTTP status: `crm_unavailable`, `CANNOT_UPDATE_…`, `503`, `410`. */
function expectNoRawCodes(text: string) {
  expect(text).not.toMatch(/\b[a-z]+_[a-z_]+\b|\b[A-Z]{2,}_[A-Z_]+\b|\b(?:4|5)\d\d\b(?! tokens)|answered/);
}

/** The contacts a run took (not skipped), in order. */
const takenOf = async (runId: string): Promise<Array<{ contact_id: string; name: string | null; email: string | null }>> =>
  em().execute('select contact_id, name, email from crm_sync_contact where run_id = ? and skip_reason is null order by position', [runId]);

describe('Pipedrive\u2019s day of API tokens held off, on the CRM page', () => {
  let page: Page;
  let productId: number;
  let heldUntil: string;

  it('the preview says why nothing can be read from Pipedrive, and until when, in UTC', async () => {
    ({ page, productId } = await ownerOnCrmPage(suite.portals.pipedrive, { researchLimit: 2 }));
    await expectAccessible(page);
    // The company's day of tokens down to the 30% we leave it: Pipedrive's next answer says so.
    await suite.portals.pipedrive.spendAllowance();
    heldUntil = shownTime(nextMidnightUtc());

    await page.getByRole('button', { name: 'Preview the next run' }).click();
    const held = page.getByRole('alert').filter({ hasText: 'Could not load the preview' });
    await held.waitFor({ timeout: 30_000 });
    const text = await held.innerText();
    expect(text).toMatch(new RegExp(
      `Pipedrive's daily API token budget is down to the 30% kept for the company's own use \\([\\d,]+ of 30,000 tokens left\\)\\. Nothing is sent to Pipedrive until ${escaped(heldUntil)}; runs wait and go on then\\.`,
    ));
    expect(text).not.toContain('cannot be reached');
    expectNoRawCodes(text);
    expect(await page.getByRole('table', { name: 'Contacts of the next run' }).count()).toBe(0);
    await expectAccessible(page);
  }, 240_000);

  it('a run started meanwhile shows Running and why it waits, until when; once the allowance is back it completes', async () => {
    expect(heldUntil, 'the hold-off of the first test').toBeDefined();
    const runId = (await pressRunNow(page, productId)).runId;
    await page.getByRole('status').filter({ hasText: 'The run started' }).waitFor();
    const run = newestRun(page);
    await run.getByText('Running', { exact: true }).waitFor({ timeout: 30_000 });
    // The run's first call meets the hold-off: the page (polling while a run is running) shows why and until when beside "Running".
    const waiting = run.getByText(/^Waiting: /);
    await waiting.waitFor({ timeout: 60_000 });
    const waitingText = await waiting.innerText();
    expect(waitingText).toMatch(new RegExp(
      `^Waiting: Pipedrive's daily API token budget is down to the 30% kept for the company's own use \\([\\d,]+ of 30,000 tokens left\\)\\. Nothing is sent to Pipedrive until ${escaped(heldUntil)}; runs wait and go on then\\.$`,
    ));
    expectNoRawCodes(waitingText);
    expect(await run.getByRole('cell').nth(3).innerText()).toBe('0');
    await expectAccessible(page);
    // Still waiting a while later: the line stays while the hold-off lasts.
    await page.waitForTimeout(3_000);
    expect(await run.getByText(/^Waiting: /).count()).toBe(1);

    // The allowance is back at midnight: the day's count starts over and the hold-off's time has come (the budget
    // row and the run's stand in for the clock); Temporal tries the waiting step now rather than when its retry timer fires.
    const handle = suite.stack.temporal.workflow.getHandle(runId);
    const pending = await until(async () => (await handle.describe()).raw.pendingActivities?.find((activity) => activity.lastFailure), 30_000);
    expect(pending.lastFailure?.applicationFailureInfo?.type).toBe('crm_unavailable');
    await suite.portals.pipedrive.restoreAllowance();
    await em().execute(`update crm_portal_budget set held_until = now() where provider = 'pipedrive'`);
    await em().execute('update crm_sync_run set waiting_until = now() where id = ?', [runId]);
    await suite.stack.temporal.workflowService.resetActivity({ namespace: suite.stack.config.temporal.namespace, execution: { workflowId: runId }, type: pending.activityType!.name!, identity: 'test' });

    await run.getByText('Completed', { exact: true }).waitFor({ timeout: 120_000 });
    expect(await run.getByText(/^Waiting: /).count()).toBe(0);
    expect(await run.getByRole('cell').nth(3).innerText()).toBe('2');
    const contacts = page.getByRole('table', { name: 'Contacts of the last run' });
    expect(await contacts.getByRole('row').filter({ hasText: 'Researched' }).count()).toBe(2);
    await expectAccessible(page);
  }, 240_000);

  it('a person deleted in Pipedrive mid-run is shown failed, refused for good, with Pipedrive\u2019s reason', async () => {
    // Slower providers keep the research going while the person is deleted: its write is still to come.
    suite.stack.providerWorld.setLatency({ '*': { meanMs: 600 } });
    try {
      const runId = (await pressRunNow(page, productId)).runId;
      await until(async () => (await takenOf(runId)).length === 2, 60_000);
      const [deleted] = await takenOf(runId);
      const reply = await fetch(`${suite.portals.pipedrive.url}/__admin/persons/delete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: [Number(deleted!.contact_id)] }) });
      expect(reply.status).toBe(200);
      await suite.stack.temporal.workflow.getHandle(runId).result();
    } finally {
      suite.stack.providerWorld.setLatency(null);
    }
    const run = newestRun(page);
    await run.getByText('Completed', { exact: true }).waitFor({ timeout: 60_000 });
    expect(await run.getByRole('cell').nth(3).innerText()).toBe('1');
    expect(await run.getByRole('cell').nth(4).innerText()).toBe('1');
    const contacts = page.getByRole('table', { name: 'Contacts of the last run' });
    const failed = contacts.getByRole('row').filter({ hasText: 'Failed' });
    expect(await failed.count()).toBe(1);
    const outcome = await shownLines(failed.getByRole('cell').first());
    expect(outcome).toBe('Failed\nPipedrive refused the write for good: it said \u201cPerson has been deleted\u201d. Later runs leave this record out.');
    expectNoRawCodes(outcome);
    expect(await contacts.getByRole('row').filter({ hasText: 'Researched' }).count()).toBe(1);
    await expectAccessible(page);
  }, 240_000);
});

describe('Salesforce: a Lead converted mid-run, on the CRM page', () => {
  it('is shown failed, refused for good, with Salesforce\u2019s reason and no error code', async () => {
    const { page, productId } = await ownerOnCrmPage(suite.portals.salesforce, { researchLimit: 2, crmObject: 'Lead' });
    await expectAccessible(page);
    const leads = suite.portals.salesforce.sandbox.org().objects.get('Lead')!.records;
    suite.stack.providerWorld.setLatency({ '*': { meanMs: 600 } });
    let converted: string;
    try {
      const runId = (await pressRunNow(page, productId)).runId;
      await until(async () => (await takenOf(runId)).length === 2, 60_000);
      converted = (await takenOf(runId))[0]!.contact_id;
      // Converted in Salesforce while we research it: Salesforce refuses every update of it from now on.
      leads.get(converted)!.IsConverted = true;
      await page.getByRole('status').filter({ hasText: 'The run started' }).waitFor();
      await suite.stack.temporal.workflow.getHandle(runId).result();
    } finally {
      suite.stack.providerWorld.setLatency(null);
    }
    const run = newestRun(page);
    await run.getByText('Completed', { exact: true }).waitFor({ timeout: 60_000 });
    const contacts = page.getByRole('table', { name: 'Contacts of the last run' });
    const failed = contacts.getByRole('row').filter({ hasText: 'Failed' });
    expect(await failed.count()).toBe(1);
    await failed.getByRole('link', { name: `Contact ${converted!} in Salesforce` }).waitFor();
    const outcome = await shownLines(failed.getByRole('cell').first());
    expect(outcome).toBe('Failed\nSalesforce refused the write for good: it said \u201ccannot reference converted lead\u201d. Later runs leave this record out.');
    expectNoRawCodes(outcome);
    await expectAccessible(page);
  }, 240_000);
});
