import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initOrm, type Orm } from '../../../db/orm.ts';
import type { LatencyMap } from '../../../sandbox/provider-world/faults.ts';
import { createAccount } from '../../../services/accounts/accounts.ts';
import { createApiKey } from '../../../services/accounts/api-keys.ts';
import { startProcess, waitFor, type ManagedProcess } from '../child-process.ts';
import { freePort } from '../free-port.ts';
import { ROOT, startLocalServices } from '../local-services.ts';

export interface BenchStack {
  workDir: string;
  apiUrl: string;
  providerUrl: string;
  /** Origin of the model sandbox (its admin routes live outside `/v1`). */
  modelOrigin: string;
  databaseUrl: string;
  temporalAddress: string;
  orm: Orm;
  /** The research worker's and the API's (the memory readings); every role's process in `workerPids`. */
  pids: { worker: number; api: number };
  workerPids: Record<string, number>;
  /** The research worker's /metrics (its calls in flight and waiting, read by the fairness part). */
  researchMetricsUrl: string;
  /** Inspector ports of the research worker and the API (see collect-garbage.ts). */
  inspectorPorts: { worker: number; api: number };
  temporalSqlitePragmas: string[];
  /** Dynamic config given over the dev server's defaults (`--temporal-config`). */
  temporalDynamicConfig: Record<string, string>;
  /** A key of a fresh Scale account with credits for every job of the run. */
  newApiKey(label: string): Promise<string>;
  setProviderLatency(latency: LatencyMap): Promise<void>;
  setModelLatency(latencyMs: number): Promise<void>;
  /** Stops the API and the workers and starts them again with `extraEnv` over their environment (the tracing part turns tracing on so); `pids` follow. */
  restartApps(extraEnv: Record<string, string>): Promise<void>;
  stop(keep: boolean): Promise<void>;
}

// Variables that would point the run at shared or real systems.
const OUTSIDE_SYSTEMS = /^(DATABASE_URL|TEMPORAL_ADDRESS|TEMPORAL_TASK_QUEUE|OPENAI_.*|AI_SANDBOX_URL|PROVIDER_SANDBOX_URL|PDL_.*|APOLLO_.*|SOCIAL_.*|NEWS_.*|PORT|RESEARCH_.*)$/;

/**
 * The whole system on the sandboxes, in a throwaway directory on free ports:
 * PostgreSQL, the Temporal dev server, the provider world, the model sandbox,
 * and the worker and the API as processes (their pids, for memory readings).
 */
export async function startBenchStack(options: {
  log: (line: string) => void;
  temporalFsync: boolean;
  temporalDynamicConfig?: Record<string, string>;
}): Promise<BenchStack> {
  const workDir = mkdtempSync(join(tmpdir(), 'prospect-bench-'));
  chmodSync(workDir, 0o755); // the PostgreSQL server user must reach its data directory inside
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUTSIDE_SYSTEMS.test(name)));
  const ports = { postgres: await freePort(), temporal: await freePort(), temporalUi: null, providerWorld: await freePort(), modelSandbox: await freePort() };
  // A throwaway state file: no fsync per history event, which on this disk costs
  // more than a whole cache hit (the dev server's SQLite is not what is
  // measured; production Temporal has its own database).
  const temporalSqlitePragmas = options.temporalFsync ? [] : ['journal_mode=wal', 'synchronous=off'];
  const temporalDynamicConfig = options.temporalDynamicConfig ?? {};
  const services = await startLocalServices({ dataDir: workDir, ports, env, log: options.log, temporalSqlitePragmas, temporalDynamicConfig });
  const apps: ManagedProcess[] = [];
  let orm: Orm | null = null;
  const stop = async (keep: boolean) => {
    await orm?.close();
    for (const app of apps.reverse()) await app.stop();
    await services.stop();
    if (!keep) rmSync(workDir, { recursive: true, force: true });
  };
  try {
    const apiPort = await freePort();
    // Both log at warn: a log line per request or activity is not what is measured.
    const appEnv: NodeJS.ProcessEnv = { ...env, ...services.env, PORT: String(apiPort), LOG_LEVEL: 'warn' };
    // The inspector (idle unless the memory part asks for a garbage collection) on ports of our choosing.
    const inspectorPorts = { worker: await freePort(), api: await freePort() };
    const researchMetricsPort = await freePort();
    const node = (entry: string, inspectorPort: number) => [
      '--disable-warning=ExperimentalWarning',
      `--inspect=127.0.0.1:${inspectorPort}`,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(workDir, 'profiles')}`] : []),
      join(ROOT, entry),
    ];
    const logFile = (name: string) => join(workDir, 'logs', `${name}.log`);
    // A process per worker role, as production runs them (docs/operations.md#processes).
    const workerRoles = ['research', 'webhooks', 'housekeeping', ...(appEnv.HUBSPOT_CLIENT_ID ? ['crm'] : [])];
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const startApps = async (env: NodeJS.ProcessEnv) => {
      const workers = Object.fromEntries(
        workerRoles.map((role) => {
          const args = role === 'research' ? node('worker/main.ts', inspectorPorts.worker) : ['--disable-warning=ExperimentalWarning', join(ROOT, 'worker/main.ts')];
          const roleEnv = role === 'research' ? { ...env, WORKER_METRICS_PORT: String(researchMetricsPort) } : env;
          return [role, startProcess(`${role}-worker`, process.execPath, [...args, role], { env: roleEnv, logFile: logFile(`${role}-worker`) })];
        }),
      );
      apps.push(...Object.values(workers));
      const api = startProcess('api', process.execPath, node('api/main.ts', inspectorPorts.api), { env, logFile: logFile('api') });
      apps.push(api);
      await waitFor('API', async () => (await fetch(`${apiUrl}/healthz`)).ok, 90_000);
      // The worker logs nothing at warn: the warm-up jobs wait for it to poll.
      return { workers, api };
    };
    const started = await startApps(appEnv);

    orm = await initOrm(services.env.DATABASE_URL, { migrate: false, poolMax: 2 });
    const providerUrl = services.env.PROVIDER_SANDBOX_URL;
    const modelOrigin = services.env.AI_SANDBOX_URL.replace(/\/v1$/, '');
    const admin = async (url: string, body: unknown) => {
      const reply = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!reply.ok) throw new Error(`POST ${url} answered ${reply.status}: ${await reply.text()}`);
    };
    const ormHandle = orm;
    const stack: BenchStack = {
      workDir,
      apiUrl,
      providerUrl,
      modelOrigin,
      databaseUrl: services.env.DATABASE_URL,
      researchMetricsUrl: `http://127.0.0.1:${researchMetricsPort}/metrics`,
      temporalAddress: services.env.TEMPORAL_ADDRESS,
      orm: ormHandle,
      pids: { worker: started.workers.research!.child.pid!, api: started.api.child.pid! },
      workerPids: Object.fromEntries(Object.entries(started.workers).map(([role, each]) => [role, each.child.pid!])),
      inspectorPorts,
      temporalSqlitePragmas,
      temporalDynamicConfig,
      async newApiKey(label) {
        const account = await createAccount(ormHandle.em.fork(), { ownerEmail: `bench-${label}@example.com`, plan: 'scale', language: 'en' }, new Date());
        // Credits are not what is measured: far more than any run submits.
        await ormHandle.em.fork().getConnection().execute('update account set credit_limit = 10000000 where id = ?', [account.id]);
        const { key } = await createApiKey(ormHandle.em.fork(), {
          accountId: account.id,
          productContext: {
            name: 'PipelineIQ',
            description: 'Revenue forecasting for B2B sales teams',
            keyFeatures: ['pipeline forecasting', 'CRM sync'],
            targetCustomers: ['sales leaders', 'revenue operations'],
            productUrl: null,
          },
        });
        return key;
      },
      setProviderLatency: (latency) => admin(`${providerUrl}/__admin/config`, { latency, replace: true }),
      setModelLatency: (latencyMs) => admin(`${modelOrigin}/__admin/config`, { latencyMs }),
      async restartApps(extraEnv) {
        for (const app of apps.splice(0).reverse()) await app.stop();
        const again = await startApps({ ...appEnv, ...extraEnv });
        stack.pids = { worker: again.workers.research!.child.pid!, api: again.api.child.pid! };
        stack.workerPids = Object.fromEntries(Object.entries(again.workers).map(([role, each]) => [role, each.child.pid!]));
      },
      stop,
    };
    return stack;
  } catch (error) {
    await stop(true);
    throw error;
  }
}

/** Each job's submitted → completed time from its row, in ms (one clock: the server's). */
export async function completionMsByJob(stack: BenchStack, researchIds: string[]): Promise<Map<string, number>> {
  const rows: Array<{ id: string; completed_ms: number }> = await stack.orm.em.fork().getConnection().execute(
    `select id, extract(epoch from completed_at - submitted_at) * 1000 as completed_ms from research_job where id in (${researchIds.map(() => '?').join(',')})`,
    researchIds,
  );
  return new Map(rows.map((row) => [row.id, Number(row.completed_ms)]));
}

/** Resident set size of a process, in MiB (VmRSS). */
export function residentMiB(pid: number): number {
  const match = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}
