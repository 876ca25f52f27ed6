// CRM runs of one account at once (CRM_RUNS_PER_ACCOUNT, 1 by default),
// through the real API, CRM worker and Pipedrive stand-in: while a run of the
// account is running (held off by Pipedrive's spent allowance), Run now on
// another product, and again on the first, answers `queued` with its place;
// the CRM page lists them so; once the running run ends they start by
// themselves, one after the other, and every run completes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { crmTestSettings } from '../helpers/crm-fixture.ts';
import { startCrmPortals, type TestPortals } from '../helpers/crm-portals.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { until } from '../helpers/until.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let portals: TestPortals;
let crmWorker: TestCrmWorker;
const em = () => stack.orm.em.fork();
const product = (name: string) => ({ name, description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null });

beforeAll(async () => {
  mail = await startTestMailSandbox();
  portals = await startCrmPortals({ world: createWorld(), em });
  stack = await startTestStack({ apiEnv: { ...mail.env, ...portals.env, DASHBOARD_MODE: 'off', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  crmWorker = await startTestCrmWorker(stack, portals);
}, 240_000);

afterAll(async () => {
  await crmWorker?.stop();
  await stack?.stop();
  await portals?.stop();
  await mail?.close();
});

type RunRow = { id: string; status: string; started_at: Date; finished_at: Date | null };
const runOf = async (runId: string): Promise<RunRow> => (await em().execute('select id, status, started_at, finished_at from crm_sync_run where id = ?', [runId]))[0];

describe('CRM runs of one account at once', () => {
  it('a run asked for while the account runs one waits queued with its place, then starts by itself; none is lost', async () => {
    const pipedrive = portals.pipedrive;
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, `crm-cap-${Date.now()}@example.com`);
    const accountId = (await client.get('/app/api/me')).body.accountId as number;
    const first = (await client.post('/app/api/keys', product('PipelineIQ'))).body.productId as number;
    const second = (await client.post('/app/api/keys', product('ForecastIQ'))).body.productId as number;
    await em().execute(`update account set plan = 'growth', credit_limit = 1000 where id = ?`, [accountId]);
    await pipedrive.connect(em(), accountId);
    for (const productId of [first, second]) await saveCrmSettings(em(), accountId, productId, crmTestSettings({ scoreProperty: pipedrive.scoreField, researchLimit: 1 }), new Date());

    // Pipedrive's allowance spent: the first run starts and waits for it, running.
    await pipedrive.spendAllowance();
    const running = await client.post(`/app/api/crm/products/${first}/run`);
    expect(running.status).toBe(202);
    expect(running.body).toMatchObject({ state: 'running', place: null });
    const handle = stack.temporal.workflow.getHandle(running.body.runId);
    const held = await until(async () => (await handle.describe()).raw.pendingActivities?.find((activity) => activity.lastFailure?.applicationFailureInfo?.type === 'crm_unavailable'), 60_000);

    // Another product's run, and the first product's again: each waits its turn, in the order asked.
    const queued = await client.post(`/app/api/crm/products/${second}/run`);
    expect([queued.status, queued.body.state, queued.body.place]).toEqual([202, 'queued', 1]);
    const again = await client.post(`/app/api/crm/products/${first}/run`);
    expect([again.status, again.body.state, again.body.place]).toEqual([202, 'queued', 2]);
    const page = await client.get(`/app/api/crm/products/${second}`);
    expect(page.body.runs[0]).toMatchObject({ id: queued.body.runId, status: 'queued', place: 1 });
    // Still waiting a while later: neither starts beside the running one.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect([(await runOf(queued.body.runId)).status, (await runOf(again.body.runId)).status]).toEqual(['queued', 'queued']);

    // The allowance is back (as in crm-holdoff-browser.test.ts): the running run goes on and ends.
    await pipedrive.restoreAllowance();
    await em().execute(`update crm_portal_budget set held_until = now() where provider = 'pipedrive'`);
    await em().execute('update crm_sync_run set waiting_until = now() where id = ?', [running.body.runId]);
    await stack.temporal.workflowService.resetActivity({ namespace: stack.config.temporal.namespace, execution: { workflowId: running.body.runId }, type: held.activityType!.name!, identity: 'test' });

    const results = [];
    for (const runId of [running.body.runId, queued.body.runId, again.body.runId]) results.push(await stack.temporal.workflow.getHandle(runId).result());
    expect(results.map((result) => result.status)).toEqual(['completed', 'completed', 'completed']);
    const [a, b, c] = await Promise.all([running.body.runId, queued.body.runId, again.body.runId].map(runOf));
    // One at a time, in the order asked.
    expect(b!.started_at.getTime()).toBeGreaterThanOrEqual(a!.finished_at!.getTime());
    expect(c!.started_at.getTime()).toBeGreaterThanOrEqual(b!.finished_at!.getTime());
  }, 300_000);
});
