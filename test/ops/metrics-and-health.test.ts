import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorMiddleware } from '../../api/error-middleware.ts';
import { metricsRouter } from '../../api/routes/metrics.ts';
import { readOperationalState } from '../../api/operational-state.ts';
import { loadWebhookConfig } from '../../integrations/webhooks/config.ts';
import { createLogger } from '../../lib/logger.ts';
import { serveOperationalState } from '../../lib/metrics.ts';
import { createEndpoint } from '../../services/webhooks/webhooks.ts';
import { waitFor } from '../../scripts/lib/child-process.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// The real worker process (worker/main.ts) beside the test stack's API: its
// /metrics, its /healthz, and how it stops.
let stack: TestStack;
let worker: ChildProcess | null = null;
let workerUrl: string;
let workerStderr = '';

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
});
afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGKILL');
    await once(worker, 'exit');
  }
  await stack?.stop();
});

async function startWorkerProcess(): Promise<ChildProcess> {
  const port = await freePort();
  workerUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'worker/main.ts')], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.config.temporal.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      WORKER_METRICS_PORT: String(port),
      PROVIDER_SANDBOX_URL: stack.providerWorld.url,
      AI_SANDBOX_URL: stack.model.url,
      AI_MAX_RETRIES: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => (workerStderr += chunk.toString()));
  await waitFor('worker /healthz', async () => (await fetch(`${workerUrl}/healthz`)).ok, 90_000).catch((error: Error) => {
    throw new Error(`${error.message}; its stderr: ${workerStderr}`);
  });
  return child;
}

/** One sample's value from a Prometheus text exposition; 0 when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (wanted.every((pair) => line.includes(pair))) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

const scrape = async (url: string) => {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
};

describe('/healthz names each dependency', () => {
  it('stays 200 without a worker, saying that nobody polls the research queue', async () => {
    const reply = await stack.api.get('/healthz');
    expect(reply).toMatchObject({ status: 200, body: { status: 'degraded', postgres: 'ok', temporal: 'ok', worker: 'no_pollers' } });
  });

  it("serves the state gauges the alerts read: the backlog's age, failing webhook endpoints, accounts whose credits drift from the ledger", async () => {
    // A fresh read (the API keeps one for half a minute), by the API's own reader.
    const scrapeNow = () => {
      serveOperationalState(() => readOperationalState(stack.orm.em.fork(), new Date()));
      return scrape(stack.apiUrl);
    };
    const before = await scrapeNow();
    for (const name of ['research_backlog_oldest_seconds', 'webhook_endpoints_failing', 'credits_ledger_drift_accounts']) expect(before).toMatch(new RegExp(`^${name} \\d`, 'm'));
    const { accountId, key } = await stack.createCustomer('growth');
    const db = stack.orm.em.fork().getConnection();
    // No worker: the job waits, queued.
    const accepted = await stack.api.research(key, { email: 'waiting@nowhere-corp.com' });
    await db.execute(`update research_job set submitted_at = now() - interval '90 seconds' where id = ?`, [accepted.body.research_id]);
    const { endpoint } = await createEndpoint(stack.orm.em.fork(), loadWebhookConfig().secretKey, { accountId, url: 'https://hooks.example.com/in', events: ['research.completed'] }, new Date());
    await db.execute(`update webhook_endpoint set failing_since = now() - interval '2 hours' where id = ?`, [endpoint.id]);
    await db.execute('update account set credits_used = credits_used + 1 where id = ?', [accountId]); // a credit with no ledger entry
    try {
      const after = await scrapeNow();
      expect(sample(after, 'research_backlog_oldest_seconds')).toBeGreaterThanOrEqual(90);
      expect(sample(after, 'webhook_endpoints_failing') - sample(before, 'webhook_endpoints_failing')).toBe(1);
      expect(sample(after, 'credits_ledger_drift_accounts') - sample(before, 'credits_ledger_drift_accounts')).toBe(1);
    } finally {
      // Out of the way of the tests below: the job never runs, the account balances again.
      await stack.temporal.workflow.getHandle(accepted.body.research_id).terminate('test over').catch(() => {});
      await db.execute(`update research_job set status = 'failed', error = 'internal_error' where id = ?`, [accepted.body.research_id]);
      await db.execute('update account set credits_used = credits_used - 1 where id = ?', [accountId]);
      await db.execute('update webhook_endpoint set failing_since = null where id = ?', [endpoint.id]);
    }
    const settled = await scrapeNow();
    expect(sample(settled, 'credits_ledger_drift_accounts')).toBe(sample(before, 'credits_ledger_drift_accounts'));
  });

  it('a failed job is counted by its error, with its refund', async () => {
    const before = await scrape(stack.apiUrl);
    // No worker yet: the job waits, and the overdue check on read fails it (as for a workflow that vanished).
    const { key } = await stack.createCustomer('growth');
    const accepted = await stack.api.research(key, { email: 'late@nowhere-corp.com' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    await stack.orm.em.fork().getConnection().execute(`update research_job set submitted_at = now() - interval '1 hour' where id = ?`, [accepted.body.research_id]);
    expect((await stack.api.status(key, accepted.body.research_id)).body).toMatchObject({ status: 'failed', error: 'timeout' });
    const after = await scrape(stack.apiUrl);
    expect(sample(after, 'research_jobs_failed_total', { error: 'timeout' }) - sample(before, 'research_jobs_failed_total', { error: 'timeout' })).toBe(1);
    expect(sample(after, 'credits_refunded_total', { reason: 'timeout' }) - sample(before, 'credits_refunded_total', { reason: 'timeout' })).toBe(1);
  });

  it('says polling once the worker runs', { timeout: 150_000 }, async () => {
    worker = await startWorkerProcess();
    await waitFor('a poller on the research queue', async () => (await stack.api.get('/healthz')).body.worker === 'polling', 30_000);
    expect((await stack.api.get('/healthz')).body).toEqual({ status: 'ok', postgres: 'ok', temporal: 'ok', worker: 'polling' });
    const workerHealth = await (await fetch(`${workerUrl}/healthz`)).json();
    expect(workerHealth).toMatchObject({ status: 'ok', workers: { research: 'RUNNING', sweeper: 'RUNNING' } });
  });
});

describe('/metrics after a job', () => {
  it('the API and the worker both count what they did', async () => {
    const [apiBefore, workerBefore] = [await scrape(stack.apiUrl), await scrape(workerUrl)];
    const { key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', withPosts: true, companyKnownTo: 'both' });
    const accepted = await stack.api.research(key, { email: person.email });
    expect(accepted.status).toBe(202);
    expect((await stack.api.waitForEnd(key, accepted.body.research_id)).body.status).toBe('completed');
    const [api, workerText] = [await scrape(stack.apiUrl), await scrape(workerUrl)];
    const moved = (text: string, before: string, name: string, labels?: Record<string, string>) => sample(text, name, labels) - sample(before, name, labels);

    expect(moved(api, apiBefore, 'research_jobs_accepted_total')).toBe(1);
    expect(moved(api, apiBefore, 'credits_consumed_total')).toBe(1);
    expect(moved(api, apiBefore, 'http_requests_total', { method: 'POST', route: '/research', status: '202' })).toBe(1);
    expect(moved(api, apiBefore, 'http_request_duration_seconds_count', { route: '/research-status/:researchId', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(api).toMatch(/^research_status_long_polls_waiting 0$/m);

    expect(moved(workerText, workerBefore, 'research_jobs_completed_total')).toBe(1);
    expect(moved(workerText, workerBefore, 'provider_calls_total', { provider: 'pdl', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(moved(workerText, workerBefore, 'provider_call_duration_seconds_count', { provider: 'pdl' })).toBeGreaterThanOrEqual(1);
    expect(moved(workerText, workerBefore, 'model_calls_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(moved(workerText, workerBefore, 'model_tokens_total', { kind: 'prompt' })).toBeGreaterThan(0);
    expect(moved(workerText, workerBefore, 'model_tokens_total', { kind: 'completion' })).toBeGreaterThan(0);
    // The Temporal runtime's own metrics, from its exporter.
    expect(sample(workerText, 'temporal_workflow_completed', { workflow_type: 'researchWorkflow' })).toBeGreaterThanOrEqual(1);
    expect(workerText).toMatch(/^temporal_worker_task_slots_available\{/m);
    // What the alerts read (docs/operations.md#alerts): pollers per task queue, labelled with the worker's role; CRM runs by status.
    expect(workerText).toMatch(/^temporal_num_pollers\{(?=.*role="[a-z+]+")(?=.*task_queue="[^"]+")(?=.*poller_type="(workflow_task|activity_task)").*\} \d+$/m);
    expect(workerText).toMatch(/^crm_runs_finished_total\{(?=.*status="failed")(?=.*role="[a-z+]+").*\} 0$/m);
    // The caps on each account's calls in flight: nothing left in flight or waiting once the job ended; the API has none.
    for (const kind of ['provider', 'model']) {
      expect(workerText).toMatch(new RegExp(`^research_calls_waiting\\{(?=.*kind="${kind}").*\\} 0$`, 'm'));
      expect(sample(workerText, 'research_calls_in_flight', { kind })).toBe(0);
      expect(sample(workerText, 'research_calls_waiting', { kind })).toBe(0);
    }
    expect(api).not.toMatch(/^research_calls_/m);
  });

});

describe('stopping the worker', () => {
  it('is quiet on a double Ctrl-C: exit 0, no IllegalStateError', async () => {
    const child = worker!;
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    child.kill('SIGINT');
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(workerStderr).not.toMatch(/IllegalStateError|Not running/);
  });
});

describe('METRICS_BEARER_TOKEN', () => {
  it("hides the API's /metrics from anyone without the token", async () => {
    const app = new Koa();
    app.use(errorMiddleware(createLogger('test', 'silent')));
    app.use(metricsRouter({ config: { ...stack.config, metricsBearerToken: 'scrape-secret' } }).routes());
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    try {
      expect((await fetch(url)).status).toBe(404);
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong-secret' } })).status).toBe(404);
      const scraped = await fetch(url, { headers: { authorization: 'Bearer scrape-secret' } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toContain('# TYPE http_requests_total counter');
    } finally {
      server.close();
    }
  });
});
