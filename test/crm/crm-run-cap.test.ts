// CRM runs of one account at once (CRM_RUNS_PER_ACCOUNT, 1 by default),
// through the real API, CRM worker and Pipedrive stand-in: while a run of the
// account is running (slow providers keep its research going), Run now on
// another product, and again on the first, answers `queued` with its place;
// the CRM page lists them so, and they stay queued while it takes its
// contacts; once it ends they start by themselves, one after the other, and
// every run completes.
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
const runOf = async (runId: string): Promise<RunRow> => {
  const [row]: RunRow[] = await em().execute('select id, status, started_at, finished_at from crm_sync_run where id = ?', [runId]);
  return row!;
};

const takenOf = async (runId: string): Promise<number> => {
  const [row]: Array<{ taken: number }> = await em().execute('select count(*)::int as taken from crm_sync_contact where run_id = ? and skip_reason is null', [runId]);
  return row!.taken;
};

describe('CRM runs of one account at once', () => {
  it('a run asked for while the account runs one waits queued with its place, then starts by itself; none is lost', async () => {
    const pipedrive = portals.pipedrive;
    let runIds: string[] = [];
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, `crm-cap-${Date.now()}@example.com`);
    const accountId = (await client.get('/app/api/me')).body.accountId as number;
    const first = (await client.post('/app/api/keys', product('PipelineIQ'))).body.productId as number;
    // Growth: the CRM integration, and more than one product.
    await em().execute(`update account set plan = 'growth', credit_limit = 1000 where id = ?`, [accountId]);
    const created = await client.post('/app/api/keys', product('ForecastIQ'));
    expect(created.status).toBe(201);
    const second = created.body.productId as number;
    await pipedrive.connect(em(), accountId);
    for (const productId of [first, second]) await saveCrmSettings(em(), accountId, productId, crmTestSettings({ scoreProperty: pipedrive.scoreField, researchLimit: 1 }), new Date());

    // Slow providers keep the first run's research going a while: it runs, holding the account's one turn.
    stack.providerWorld.setLatency({ '*': { meanMs: 1_500 } });
    try {
      const running = await client.post(`/app/api/crm/products/${first}/run`);
      expect(running.status).toBe(202);
      expect(running.body).toMatchObject({ state: 'running', place: null });

      // Another product's run, and the first product's again: each waits its turn, in the order asked.
      const queued = await client.post(`/app/api/crm/products/${second}/run`);
      expect([queued.status, queued.body.state, queued.body.place]).toEqual([202, 'queued', 1]);
      const again = await client.post(`/app/api/crm/products/${first}/run`);
      expect([again.status, again.body.state, again.body.place]).toEqual([202, 'queued', 2]);
      const page = await client.get(`/app/api/crm/products/${second}`);
      expect(page.body.runs[0]).toMatchObject({ id: queued.body.runId, status: 'queued', place: 1 });
      runIds = [running.body.runId, queued.body.runId, again.body.runId];
      // Neither starts beside the running one.
      await until(async () => (await runOf(runIds[0]!)).status !== 'running' || ((await takenOf(runIds[0]!)) > 0 && 'taken'), 60_000);
      expect([(await runOf(runIds[0]!)).status, (await runOf(runIds[1]!)).status, (await runOf(runIds[2]!)).status]).toEqual(['running', 'queued', 'queued']);
    } finally {
      stack.providerWorld.setLatency(null);
    }

    const results = [];
    for (const runId of runIds) results.push(await stack.temporal.workflow.getHandle(runId).result());
    expect(results.map((result) => result.status)).toEqual(['completed', 'completed', 'completed']);
    const [a, b, c] = await Promise.all(runIds.map(runOf));
    // One at a time, in the order asked.
    const at = (time: Date | string | null) => new Date(time!).getTime();
    expect(at(b!.started_at)).toBeGreaterThanOrEqual(at(a!.finished_at));
    expect(at(c!.started_at)).toBeGreaterThanOrEqual(at(b!.finished_at));
  }, 300_000);
});
