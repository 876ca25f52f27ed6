// `npm run bench`: latency of a cache-hit research job, from POST /research to
// `completed` visible on the status endpoint, over the whole system on the
// sandboxes (PostgreSQL, Temporal dev server, provider world, model sandbox,
// the worker and the API as processes), as a client sees it over HTTP.
//
// Settings (environment): BENCH_JOBS (default 300), BENCH_CONCURRENCY (1),
// BENCH_POLL (`wait`: GET ?wait=10, the extension a client would use;
// `tight`: plain GETs every 5 ms), BENCH_WARMUP (20), BENCH_TEMPORAL_FSYNC (0). Figures are printed and
// written to bench/results/cache-hit.json; nothing is asserted.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { initOrm } from '../db/orm.ts';
import { createAccount } from '../services/accounts.ts';
import { createApiKey } from '../services/api-keys.ts';
import { startProcess, waitFor, type ManagedProcess } from './lib/child-process.ts';
import { freePort } from './lib/free-port.ts';
import { ROOT, startLocalServices } from './lib/local-services.ts';

const JOBS = Number(process.env.BENCH_JOBS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const POLL = process.env.BENCH_POLL === 'tight' ? 'tight' : 'wait';
const TIGHT_POLL_MS = 5;
const TARGET_P95_MS = 300;
/** Past the 3-minute deadline a job must have ended. */
const JOB_TIMEOUT_MS = 200_000;

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

// Variables that would point the run at shared or real systems.
const OUTSIDE_SYSTEMS = /^(DATABASE_URL|TEMPORAL_ADDRESS|TEMPORAL_TASK_QUEUE|OPENAI_.*|AI_SANDBOX_URL|PROVIDER_SANDBOX_URL|PDL_API_KEY|APOLLO_API_KEY|SOCIAL_API_KEY|NEWS_API_KEY|PORT)$/;

const workDir = mkdtempSync(join(tmpdir(), 'prospect-bench-'));
chmodSync(workDir, 0o755); // the PostgreSQL server user must reach its data directory inside
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUTSIDE_SYSTEMS.test(name)));
const ports = { postgres: await freePort(), temporal: await freePort(), temporalUi: null, providerWorld: await freePort(), modelSandbox: await freePort() };
// A throwaway state file: no fsync per history event, which on this disk costs
// more than the whole cache hit (the dev server's SQLite is not what is
// measured; production Temporal has its own database). BENCH_TEMPORAL_FSYNC=1
// keeps the dev server's default full sync.
const TEMPORAL_SQLITE_PRAGMAS = process.env.BENCH_TEMPORAL_FSYNC === '1' ? [] : ['journal_mode=wal', 'synchronous=off'];
const services = await startLocalServices({ dataDir: workDir, ports, env, log, temporalSqlitePragmas: TEMPORAL_SQLITE_PRAGMAS });
const apps: ManagedProcess[] = [];

async function stopAll(): Promise<void> {
  for (const app of apps.reverse()) await app.stop();
  await services.stop();
  // Kept after a failure, for its logs.
  if (!process.exitCode) rmSync(workDir, { recursive: true, force: true });
}

interface Sample {
  totalMs: number;
  postMs: number;
  polls: number;
  researchId: string;
}

try {
  const apiPort = await freePort();
  const appEnv = { ...env, ...services.env, PORT: String(apiPort), LOG_LEVEL: 'warn' };
  const node = (entry: string) => ['--disable-warning=ExperimentalWarning', join(ROOT, entry)];
  const logFile = (name: string) => join(workDir, 'logs', `${name}.log`);
  apps.push(startProcess('worker', process.execPath, node('worker/main.ts'), { env: appEnv, logFile: logFile('worker') }));
  apps.push(startProcess('api', process.execPath, node('api/main.ts'), { env: appEnv, logFile: logFile('api') }));
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await waitFor('API', async () => (await fetch(`${apiUrl}/healthz`)).ok, 90_000);

  const orm = await initOrm(services.env.DATABASE_URL, { migrate: false, poolMax: 2 });
  const account = await createAccount(orm.em.fork(), { ownerEmail: 'bench@example.com', plan: 'scale', language: 'en' }, new Date());
  // Enough credits for every measured job: credits are not what is measured.
  await orm.em.fork().getConnection().execute('update account set credit_limit = 1000000 where id = ?', [account.id]);
  const { key } = await createApiKey(orm.em.fork(), {
    accountId: account.id,
    productContext: {
      name: 'PipelineIQ',
      description: 'Revenue forecasting for B2B sales teams',
      keyFeatures: ['pipeline forecasting', 'CRM sync'],
      targetCustomers: ['sales leaders', 'revenue operations'],
      productUrl: null,
    },
  });
  const sample = await (await fetch(`${services.env.PROVIDER_SANDBOX_URL}/__admin/sample-people?knownTo=both&withPosts=true&limit=1`)).json();
  const email: string = sample.people?.[0]?.email ?? sample[0]?.email;
  if (!email) throw new Error(`no sample person from the provider world: ${JSON.stringify(sample).slice(0, 200)}`);

  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  async function runJob(): Promise<Sample & { body: any }> {
    const started = performance.now();
    const accepted = await fetch(`${apiUrl}/research`, { method: 'POST', headers, body: JSON.stringify({ email }) });
    const acceptedBody = await accepted.json();
    const postMs = performance.now() - started;
    if (accepted.status !== 202) throw new Error(`POST /research answered ${accepted.status}: ${JSON.stringify(acceptedBody)}`);
    const researchId: string = acceptedBody.research_id;
    let polls = 0;
    for (;;) {
      polls += 1;
      const path = `/research-status/${researchId}${POLL === 'wait' ? '?wait=10' : ''}`;
      const reply = await fetch(`${apiUrl}${path}`, { headers: { authorization: headers.authorization } });
      const body = await reply.json();
      if (reply.status !== 200) throw new Error(`GET ${path} answered ${reply.status}: ${JSON.stringify(body)}`);
      if (performance.now() - started > JOB_TIMEOUT_MS) throw new Error(`${researchId} still ${body.status} after ${JOB_TIMEOUT_MS} ms`);
      if (body.status === 'completed' || body.status === 'failed') {
        return { totalMs: performance.now() - started, postMs, polls, researchId, body };
      }
      if (POLL === 'tight') await new Promise((resolve) => setTimeout(resolve, TIGHT_POLL_MS));
    }
  }

  log(`Warming the cache for ${email}…`);
  const warm = await runJob();
  if (warm.body.status !== 'completed') throw new Error(`the warm-up job ended ${JSON.stringify(warm.body)}`);
  log(`First (uncached) job: ${warm.totalMs.toFixed(0)} ms. ${WARMUP} unmeasured cache hits to warm the processes…`);
  for (let index = 0; index < WARMUP; index += 1) await runJob();

  log(`Measuring ${JOBS} cache-hit jobs, concurrency ${CONCURRENCY}, polling ${POLL}…`);
  const samples: Sample[] = [];
  let failures = 0;
  let notFromCache = 0;
  let next = 0;
  const wallStarted = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < JOBS) {
        next += 1;
        const result = await runJob();
        if (result.body.status !== 'completed') failures += 1;
        else if (result.body._meta?.prospect?.from_cache !== true) notFromCache += 1;
        samples.push(result);
      }
    }),
  );
  const wallMs = performance.now() - wallStarted;
  // Other work on the machine skews every figure: say how busy it was.
  const loadAverage = loadavg().map((v) => Math.round(v * 100) / 100);

  // Where the time went, from the job rows (one clock: the API and the worker run on this machine).
  const phases: Array<{ id: string; completed_ms: number }> = await orm.em.fork().getConnection().execute(
    `select id, extract(epoch from completed_at - submitted_at) * 1000 as completed_ms
       from research_job where id in (${samples.map(() => '?').join(',')})`,
    samples.map((s) => s.researchId),
  );
  const completedMsById = new Map(phases.map((p) => [p.id, Number(p.completed_ms)]));
  await orm.close();
  const history = await profileHistories(services.env.TEMPORAL_ADDRESS, samples.slice(-20).map((s) => s.researchId));

  const total = summarise(samples.map((s) => s.totalMs));
  const post = summarise(samples.map((s) => s.postMs));
  const completed = summarise(phases.map((p) => Number(p.completed_ms)));
  // What the client waited beyond the server's own submitted → completed: HTTP, auth, status polling.
  const overhead = summarise(samples.map((s) => s.totalMs - (completedMsById.get(s.researchId) ?? 0)));
  const rows = [
    ['POST → completed visible (client)', total],
    ['  POST /research → 202', post],
    ['  submitted → completed (job row, server clock)', completed],
    ['  client time outside the row (HTTP, auth, polling)', overhead],
  ] as const;
  const table = [
    `cache-hit latency, ${samples.length} jobs, concurrency ${CONCURRENCY}, polling ${POLL}, Temporal dev server ${TEMPORAL_SQLITE_PRAGMAS.length ? 'without fsync' : 'with fsync'} (ms)`,
    `${'phase'.padEnd(58)}${['p50', 'p95', 'p99', 'max', 'mean'].map((h) => h.padStart(8)).join('')}`,
    ...rows.map(([name, s]) => `${name.padEnd(58)}${[s.p50, s.p95, s.p99, s.max, s.mean].map((v) => v.toFixed(1).padStart(8)).join('')}`),
    `throughput ${(samples.length / (wallMs / 1000)).toFixed(1)} jobs/s; polls per job ${(samples.reduce((n, s) => n + s.polls, 0) / samples.length).toFixed(2)}; failed ${failures}; not from cache ${notFromCache}`,
    `load average at the end (1/5/15 min) ${loadAverage.join(' / ')} on ${cpus().length} cores`,
    `target p95 < ${TARGET_P95_MS} ms: ${total.p95 < TARGET_P95_MS ? 'met' : 'missed'}`,
  ];
  table.push('Temporal history of the last 20 jobs (mean ms from the previous event):');
  for (const [step, ms] of history) table.push(`  ${step.padEnd(70)}${ms.toFixed(1).padStart(8)}`);
  process.stdout.write(`${table.join('\n')}\n`);

  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const result = {
    benchmark: 'cache-hit',
    measuredAt: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, loadAverage },
    settings: { jobs: samples.length, concurrency: CONCURRENCY, poll: POLL, warmup: WARMUP, temporalSqlitePragmas: TEMPORAL_SQLITE_PRAGMAS },
    latencyMs: total,
    phasesMs: { post, submittedToCompleted: completed, clientOverhead: overhead },
    temporalHistoryMeanGapsMs: Object.fromEntries(history),
    throughputJobsPerSecond: samples.length / (wallMs / 1000),
    failures,
    notFromCache,
    targetP95Ms: TARGET_P95_MS,
  };
  writeFileSync(join(resultsDir, 'cache-hit.json'), `${JSON.stringify(result, null, 2)}\n`);
  log(`Wrote bench/results/cache-hit.json`);
} catch (error) {
  log(`failed: ${(error as Error).stack ?? error}`);
  log(`logs were in ${join(workDir, 'logs')}`);
  process.exitCode = 1;
} finally {
  await stopAll();
}

function summarise(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  const round = (v: number) => Math.round(v * 10) / 10;
  return {
    p50: round(at(0.5)),
    p95: round(at(0.95)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
    mean: round(sorted.reduce((sum, v) => sum + v, 0) / (sorted.length || 1)),
  };
}

/** Mean gap between consecutive history events of the given workflows: where Temporal's time goes. */
async function profileHistories(address: string, workflowIds: string[]): Promise<Array<[string, number]>> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const gaps = new Map<string, number[]>();
    for (const workflowId of workflowIds) {
      const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
      let previous: { name: string; ms: number } | null = null;
      for (const event of events ?? []) {
        const ms = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.round((event.eventTime?.nanos ?? 0) / 1e6);
        const name = eventName(event);
        if (previous) {
          const step = `${previous.name} → ${name}`;
          gaps.set(step, [...(gaps.get(step) ?? []), ms - previous.ms]);
        }
        previous = { name, ms };
      }
    }
    return [...gaps].map(([step, values]) => [step, values.reduce((sum, v) => sum + v, 0) / values.length]);
  } finally {
    await connection.close();
  }
}

function eventName(event: object): string {
  const attributes = Object.keys(event).find((key) => key.endsWith('EventAttributes') && (event as Record<string, unknown>)[key]);
  const base = attributes?.replace(/EventAttributes$/, '') ?? 'event';
  const activity = (event as { activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } }).activityTaskScheduledEventAttributes?.activityType?.name;
  return activity ? `${base}(${activity})` : base;
}
