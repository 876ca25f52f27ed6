// One HubSpot budget and one token per portal across the processes of the
// process-per-workload split (docs/crm.md#rate-limits, docs/crm.md#tokens):
// two real CRM worker processes (worker/main.ts crm) run two products' sync
// runs on one portal while the API (this process) keeps reading the preview
// and the portal's properties. Mid-way the HubSpot stand-in answers one call
// with 429 and Retry-After, then calls every access token expired. From the
// stand-in's log of arrivals: no call from any process during the backoff,
// never more calls in 10 s (or searches in 1 s) than the budget, one refresh
// grant for the expiry, and the dead token not used after its 401 came back.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CRM_SYNC_WORKFLOW_TYPE } from '../../domain/crm/crm.ts';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import { decryptToken } from '../../lib/token-cipher.ts';
import { freePort } from '../../lib/free-port.ts';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { crmTaskQueue } from '../../services/crm/schedules.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { crmTestSettings, startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { until } from '../helpers/until.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

/** Our budget in every process, small enough that three processes reach it. */
const BUDGET = { HUBSPOT_MAX_CALLS_PER_10S: '12', HUBSPOT_MAX_SEARCHES_PER_SECOND: '2' };
/** The stand-in's own limits a little above it, as HubSpot's 110 are above our default 100: going over the budget shows as a 429. */
const STAND_IN_LIMITS = { general: 13, searchPerSecond: 3 };
const RETRY_AFTER_S = 3;
/** A call already on its way when another process's 429 or 401 came back may still arrive just after it. */
const IN_FLIGHT_GRACE_MS = 250;

let stack: TestStack;
let crm: CrmFixture;
let mail: TestMailSandbox;
const workers: ChildProcess[] = [];
const em = () => stack.orm.em.fork();

type Call = { at: number; kind: string; status: number; token?: string };

beforeAll(async () => {
  mail = await startTestMailSandbox();
  crm = await startCrmFixture({ world: createWorld(), em, people: 60 });
  await fetch(`${crm.hubspot.url}/__admin/limits`, { method: 'POST', body: JSON.stringify(STAND_IN_LIMITS) });
  stack = await startTestStack({ apiEnv: { ...mail.env, ...crm.env, ...BUDGET, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
}, 180_000);
afterAll(async () => {
  for (const worker of workers) {
    if (worker.exitCode !== null || worker.signalCode !== null) continue;
    worker.kill('SIGKILL');
    await once(worker, 'exit');
  }
  await stack?.stop();
  await crm?.stop();
  await mail?.close();
});

/**
 * A CRM worker process on `researchTaskQueue`'s CRM queue. Temporal hands a
 * run's activities to the worker that runs its workflow, so each process gets
 * queues of its own (the second one researching its run's contacts too):
 * each run is then certain to call HubSpot from its own process.
 */
async function startCrmWorkerProcess(researchTaskQueue: string, roles: string): Promise<ChildProcess> {
  const port = await freePort();
  const worker = startWorkerProcess(stack, {
    ...crm.env, ...BUDGET, WORKER_ROLES: roles, TEMPORAL_TASK_QUEUE: researchTaskQueue, WORKER_METRICS_PORT: String(port), WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
  });
  workers.push(worker);
  await until(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.ok, 90_000);
  return worker;
}

async function hubspotCalls(since: number): Promise<Call[]> {
  const { calls } = (await (await fetch(`${crm.hubspot.url}/__admin/calls?since=${new Date(since).toISOString()}`)).json()) as { calls: Array<Omit<Call, 'at'> & { at: string }> };
  return calls.filter((call) => call.kind !== 'admin' && call.kind !== 'page').map((call) => ({ ...call, at: Date.parse(call.at) }));
}

/** How the stand-in's log names the connection's stored access token. */
async function storedTokenLabel(accountId: number): Promise<string> {
  const [row] = await em().execute('select access_token from crm_connection where account_id = ?', [accountId]);
  return createHash('sha256').update(decryptToken(crm.config.tokenKey, row.access_token, 'access')).digest('hex').slice(0, 12);
}

/** The most calls that arrived within `windowMs` of one another (each call opening a window). */
const peakIn = (calls: Call[], windowMs: number) => Math.max(0, ...calls.map((call) => calls.filter((other) => other.at >= call.at && other.at < call.at + windowMs).length));

/** Which processes ran the run's CRM activities (a worker's identity is the SDK's default, pid@host). */
async function hubspotActivityWorkers(workflowId: string): Promise<Set<string>> {
  const events = (await stack.temporal.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const typeOf = new Map(events.map((event) => [String(event.eventId), event.activityTaskScheduledEventAttributes?.activityType?.name]));
  const identities = new Set<string>();
  for (const event of events) {
    const started = event.activityTaskStartedEventAttributes;
    if (started?.identity && typeOf.get(String(started.scheduledEventId))?.startsWith('crm')) identities.add(started.identity);
  }
  return identities;
}

it('two CRM worker processes and the API share one portal\'s budget, its backoff after a 429 and its token across an expiry', async () => {
  const email = `budget-${Date.now()}@example.com`;
  const owner = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email);
  const [{ id: accountId }] = await em().execute('select id from account where owner_email = ?', [email]);
  await em().execute(`update account set plan = 'growth', credit_limit = 200 where id = ?`, [accountId]);
  const productIds: number[] = [];
  for (const name of ['PipelineIQ', 'ForecastIQ']) {
    const created = await owner.post('/app/api/keys', { name, description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null });
    productIds.push(created.body.productId);
  }
  await crm.connect(em(), accountId);
  // Far from now, so that no Schedule the workers reconcile at start fires during the test.
  const hourUtc = (new Date().getUTCHours() + 12) % 24;
  for (const productId of productIds) {
    await saveCrmSettings(em(), accountId, productId, crmTestSettings({ hourUtc, minScore: 0, skipFreeMail: false, skipRoleBased: false, researchLimit: 10, digestEnabled: false }), new Date());
  }
  const queues = [stack.config.temporal.taskQueue, `${stack.config.temporal.taskQueue}-b`];
  const processes = [await startCrmWorkerProcess(queues[0]!, 'crm'), await startCrmWorkerProcess(queues[1]!, 'crm,research')];

  // Slow research keeps the runs going (and writing) for a while.
  stack.providerWorld.setLatency({ '*': { meanMs: 300 } });
  // The first write of a run is refused with 429 and Retry-After: only a worker makes it, the API reads.
  crm.hubspot.setFaults({ rateLimitNext: 1, rateLimitRetryAfterSeconds: RETRY_AFTER_S, on: 'write' });
  const since = Date.now();
  const handles = await Promise.all(productIds.map((productId, index) =>
    stack.temporal.workflow.start(CRM_SYNC_WORKFLOW_TYPE, { workflowId: `crm-run-${productId}-shared-budget`, taskQueue: crmTaskQueue(queues[index]!), args: [{ productId, trigger: 'manual' }] }),
  ));
  const running = Promise.all(handles.map((handle) => handle.result() as Promise<CrmSyncResult>));
  let runsEnded = false;
  void running.finally(() => (runsEnded = true)).catch(() => {});

  // The API's side: the preview of both products and the portal's properties, read again and again while the runs go.
  const apiRequests: Array<{ startedAt: number; endedAt: number; status: number }> = [];
  const api = (async () => {
    for (let round = 0; !runsEnded; round++) {
      const startedAt = Date.now();
      const reply = round % 3 === 2 ? await owner.post('/app/api/crm/score-properties/refresh', {}) : await owner.get(`/app/api/crm/products/${productIds[round % 3]}/preview`);
      apiRequests.push({ startedAt, endedAt: Date.now(), status: reply.status });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();

  // Two seconds in (the runs making their properties and searching, the API reading): every access token expires.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const liveToken = await storedTokenLabel(accountId);
  const expiredAt = Date.now();
  await fetch(`${crm.hubspot.url}/__admin/expire-access-tokens`, { method: 'POST' });
  const limited = await until(async () => (await hubspotCalls(since)).find((call) => call.status === 429), 120_000);
  crm.hubspot.setFaults({ rateLimitRetryAfterSeconds: null, on: 'all' });
  expect(runsEnded).toBe(false);

  const results = await running;
  await api;
  expect(results.map((result) => [result.status, result.counts.researched + result.counts.failed])).toEqual([['completed', 10], ['completed', 10]]);
  expect(apiRequests.filter((request) => request.status !== 200)).toEqual([]);
  // Each worker process called HubSpot for its run.
  for (const [index, handle] of handles.entries()) expect(await hubspotActivityWorkers(handle.workflowId)).toEqual(new Set([`${processes[index]!.pid}@${hostname()}`]));

  const calls = await hubspotCalls(since);
  const general = calls.filter((call) => call.kind !== 'search' && call.kind !== 'oauth');
  const searches = calls.filter((call) => call.kind === 'search');

  // The budget, whichever process called: never more in 10 s (1 s for searches), and HubSpot refused nothing but the fault.
  expect(peakIn(general, 10_000)).toBeLessThanOrEqual(Number(BUDGET.HUBSPOT_MAX_CALLS_PER_10S));
  expect(peakIn(searches, 1_000)).toBeLessThanOrEqual(Number(BUDGET.HUBSPOT_MAX_SEARCHES_PER_SECOND));
  expect(calls.filter((call) => call.status === 429)).toEqual([limited]);

  // The backoff: no process called until the Retry-After had passed; the API was among those waiting.
  const backoffEnds = limited.at + RETRY_AFTER_S * 1_000;
  const duringBackoff = calls.filter((call) => call.kind !== 'oauth' && call.at > limited.at + IN_FLIGHT_GRACE_MS && call.at < backoffEnds);
  expect(duringBackoff).toEqual([]);
  expect(apiRequests.some((request) => request.startedAt < backoffEnds - 1_000 && request.endedAt >= backoffEnds)).toBe(true);

  // The expiry: one refresh grant for every process, and the dead token never sent once its first 401 was back.
  const grants = calls.filter((call) => call.kind === 'oauth' && call.at >= expiredAt);
  expect(grants).toHaveLength(1);
  const refused = calls.filter((call) => call.status === 401);
  expect(refused.length).toBeGreaterThanOrEqual(1);
  expect(new Set(refused.map((call) => call.token))).toEqual(new Set([liveToken]));
  const withDeadToken = calls.filter((call) => call.token === liveToken && call.at >= expiredAt);
  expect(withDeadToken.filter((call) => call.at > refused[0]!.at + IN_FLIGHT_GRACE_MS)).toEqual([]);
  expect(calls.filter((call) => call.at > grants[0]!.at && call.status === 200).length).toBeGreaterThan(0);

  console.info(JSON.stringify({
    calls: calls.length, peakCallsPer10s: peakIn(general, 10_000), peakSearchesPer1s: peakIn(searches, 1_000), budget: BUDGET,
    backoffMs: RETRY_AFTER_S * 1_000, callsDuringBackoff: duringBackoff.length,
    firstCallAfter429Ms: Math.min(...calls.filter((call) => call.at > limited.at + IN_FLIGHT_GRACE_MS).map((call) => call.at)) - limited.at,
    refreshGrantsAfterExpiry: grants.length, refused401: refused.length,
    lastDeadTokenCallAfterFirst401Ms: Math.max(...withDeadToken.map((call) => call.at)) - refused[0]!.at,
    apiRequests: apiRequests.length,
  }));
}, 300_000);
