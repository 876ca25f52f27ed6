import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { startProcess, waitFor, type ManagedProcess } from '../child-process.ts';
import { freePort } from '../free-port.ts';
import { ROOT } from '../local-services.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../postgres-server.ts';
import { ensureTemporalCli, startTemporalDevServer } from '../temporal-server.ts';
import { initOrm } from '../../../db/orm.ts';

export interface ChaosStackOptions {
  deadlineMs: number;
  backstopGraceMs: number;
  sweepIntervalMs: number;
  /** Per provider call attempt; short so that held ("timeout") replies resolve quickly. */
  providerTimeoutMs: number;
  logLevel: string;
  keepData: boolean;
  log: (line: string) => void;
}

/** A service the chaos cases stop, kill and start again. */
export interface Restartable {
  readonly name: string;
  isRunning(): boolean;
  /** SIGKILL (or the given signal) without waiting for a clean shutdown. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** The service's own clean stop (fast shutdown for PostgreSQL, SIGTERM otherwise). */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export interface ChaosStack {
  workDir: string;
  apiUrl: string;
  providerUrl: string;
  modelUrl: string;
  databaseUrl: string;
  /** For the checks; reconnects by itself after a PostgreSQL restart. */
  sql: pg.Pool;
  temporal: Client;
  postgres: Restartable;
  /** `freeze()` stops the process (SIGSTOP) without killing it: Temporal hangs, as under a long pause; `thaw()` resumes it. */
  temporalServer: Restartable & { freeze(): void; thaw(): void };
  worker: Restartable;
  api: Restartable;
  /** App processes that died without being told to, since the last call (the stack restarted them). */
  takeUnexpectedExits(): string[];
  /** Stops everything; the work dir (data and logs) stays when `keepData` or `keep`. */
  stop(keep?: boolean): Promise<void>;
}

// Variables that would point the stack at shared or real systems.
const OUTSIDE_SYSTEMS = /^(DATABASE_URL|TEMPORAL_ADDRESS|TEMPORAL_TASK_QUEUE|OPENAI_.*|AI_SANDBOX_URL|PROVIDER_SANDBOX_URL|PDL_.*|APOLLO_.*|SOCIAL_.*|NEWS_.*|PORT|RESEARCH_.*)$/;

const node = (entry: string) => ['--disable-warning=ExperimentalWarning', join(ROOT, entry)];

/**
 * The whole system in a throwaway directory on free ports, every service a
 * process of its own that a case can kill and start again: PostgreSQL (data
 * kept across restarts), the Temporal dev server (state in a database file),
 * the provider and model sandboxes, one worker and one API. The worker and the
 * API are supervised like a process manager would: an unexpected exit is
 * recorded and the process started again.
 */
export async function startChaosStack(options: ChaosStackOptions): Promise<ChaosStack> {
  const { log } = options;
  const workDir = mkdtempSync(join(tmpdir(), 'prospect-chaos-'));
  chmodSync(workDir, 0o755); // the postgres system user must reach its data directory inside
  const logDir = join(workDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = (name: string) => join(logDir, `${name}.log`);
  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUTSIDE_SYSTEMS.test(name)));
  const ports = { postgres: await freePort(), temporal: await freePort(), provider: await freePort(), model: await freePort(), api: await freePort() };
  const cleanups: Array<() => Promise<void>> = [];
  const unexpectedExits: string[] = [];

  const stop = async (keep = options.keepData) => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => log(`cleanup: ${String(error)}`));
    if (keep) log(`Kept ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  };

  try {
    // PostgreSQL: fsync off is safe here, a clean shutdown still writes everything.
    let pgServer: EmbeddedPostgresServer | null = null;
    const startPostgres = async () => {
      pgServer = await startEmbeddedPostgres({
        dataDir: join(workDir, 'postgres'),
        port: ports.postgres,
        database: 'prospect',
        isThrowaway: true,
        logFile: logFile('postgres'),
      });
    };
    log(`Starting PostgreSQL on ${ports.postgres}…`);
    await startPostgres();
    const postgres: Restartable = {
      name: 'postgres',
      isRunning: () => isAlive(pgServer?.process ?? null),
      kill: async (signal = 'SIGKILL') => killAndWait(pgServer?.process ?? null, signal),
      stop: async () => pgServer?.stop(),
      start: startPostgres,
    };
    cleanups.push(() => postgres.stop());
    const databaseUrl = pgServer!.url;
    const migrator = await initOrm(databaseUrl, { migrate: true, poolMax: 1 });
    await migrator.close();

    const binary = ensureTemporalCli(ROOT);
    let temporalProcess: ManagedProcess | null = null;
    const startTemporal = async () => {
      const server = await startTemporalDevServer({
        binary,
        port: ports.temporal,
        uiPort: null,
        dbFile: join(workDir, 'temporal.db'),
        // WAL without fsync: survives a process restart, and keeps up with hundreds of jobs.
        sqlitePragmas: ['journal_mode=wal', 'synchronous=off'],
        logFile: logFile('temporal'),
      });
      temporalProcess = server.process;
    };
    log(`Starting the Temporal dev server on ${ports.temporal} (state in temporal.db)…`);
    await startTemporal();
    const temporalServer: ChaosStack['temporalServer'] = {
      name: 'temporal',
      freeze: () => temporalProcess?.child.kill('SIGSTOP'),
      thaw: () => temporalProcess?.child.kill('SIGCONT'),
      isRunning: () => isAlive(temporalProcess),
      kill: async (signal = 'SIGKILL') => killAndWait(temporalProcess, signal),
      stop: async () => temporalProcess?.stop(15_000),
      start: startTemporal,
    };
    cleanups.push(() => temporalServer.stop());
    const temporalAddress = `127.0.0.1:${ports.temporal}`;

    log('Starting the provider and model sandboxes…');
    const providerUrl = `http://127.0.0.1:${ports.provider}`;
    const modelUrl = `http://127.0.0.1:${ports.model}`;
    for (const [name, entry, port, url] of [
      ['provider-world', 'sandbox/provider-world/main.ts', ports.provider, providerUrl],
      ['model-sandbox', 'sandbox/model/main.ts', ports.model, modelUrl],
    ] as const) {
      const sandbox = startProcess(name, process.execPath, node(entry), { env: { ...baseEnv, PORT: String(port), SANDBOX_MODEL_PORT: String(port) }, logFile: logFile(name) });
      cleanups.push(() => sandbox.stop());
      await waitFor(name, async () => (await fetch(`${url}/__admin/calls`)).ok, 30_000);
    }

    const appEnv: Record<string, string> = {
      ...(baseEnv as Record<string, string>),
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_TASK_QUEUE: 'research',
      RESEARCH_DEADLINE_MS: String(options.deadlineMs),
      RESEARCH_BACKSTOP_GRACE_MS: String(options.backstopGraceMs),
      RESEARCH_SWEEP_INTERVAL_MS: String(options.sweepIntervalMs),
      PROVIDER_SANDBOX_URL: providerUrl,
      PROVIDER_TIMEOUT_MS: String(options.providerTimeoutMs),
      AI_SANDBOX_URL: `${modelUrl}/v1`,
      // The stand-ins' pages (company websites) are on loopback: the outbound guard reaches them only when told.
      ALLOW_PRIVATE_HOSTS: '127.0.0.1',
      AI_TIMEOUT_MS: '15000',
      LOG_LEVEL: options.logLevel,
      PORT: String(ports.api),
    };
    const apiUrl = `http://127.0.0.1:${ports.api}`;

    // The worker's readiness is its "worker running" line, logged at info.
    const workerEnv = { ...appEnv, LOG_LEVEL: ['debug', 'trace'].includes(options.logLevel) ? options.logLevel : 'info' };
    const worker = supervised({
      name: 'worker',
      spawn: () => startProcess('worker', process.execPath, node('worker/main.ts'), { env: workerEnv, logFile: logFile('worker') }),
      // Ready once it polls: it logs "worker running" after bundling the workflows.
      isReady: (output) => output.includes('worker running'),
      onUnexpectedExit: (line) => {
        unexpectedExits.push(line);
        log(`!! ${line}`);
      },
    });
    const api = supervised({
      name: 'api',
      spawn: () => startProcess('api', process.execPath, node('api/main.ts'), { env: appEnv, logFile: logFile('api') }),
      probe: async () => (await fetch(`${apiUrl}/healthz`, { signal: AbortSignal.timeout(3_000) })).ok,
      onUnexpectedExit: (line) => {
        unexpectedExits.push(line);
        log(`!! ${line}`);
      },
    });
    log('Starting the worker and the API…');
    await Promise.all([worker.start(), api.start()]);
    cleanups.push(() => worker.stop(), () => api.stop());

    const sql = new pg.Pool({ connectionString: databaseUrl, max: 4 });
    // Idle clients lose their server during a PostgreSQL restart; the pool replaces them.
    sql.on('error', () => {});
    cleanups.push(() => sql.end());
    const temporal = new Client({ connection: await Connection.connect({ address: temporalAddress }) });
    cleanups.push(() => temporal.connection.close());

    return {
      workDir,
      apiUrl,
      providerUrl,
      modelUrl,
      databaseUrl,
      sql,
      temporal,
      postgres,
      temporalServer,
      worker,
      api,
      takeUnexpectedExits: () => unexpectedExits.splice(0),
      stop,
    };
  } catch (error) {
    log(`Start-up failed; logs in ${logDir}`);
    await stop(true);
    throw error;
  }
}

interface SupervisedOptions {
  name: string;
  spawn: () => ManagedProcess;
  /** Readiness from the process's output, or from a probe. */
  isReady?: (output: string) => boolean;
  probe?: () => Promise<boolean>;
  onUnexpectedExit: (line: string) => void;
}

const READY_TIMEOUT_MS = 120_000;
const RESTART_DELAY_MS = 1_000;

function supervised(options: SupervisedOptions): Restartable {
  let current: { managed: ManagedProcess; output: string } | null = null;
  let isWanted = false;

  function spawnInstance(): void {
    const instance = { managed: options.spawn(), output: '' };
    current = instance;
    instance.managed.child.stdout?.on('data', (chunk: Buffer) => {
      if (instance.output.length < 1_000_000) instance.output += chunk.toString('utf8');
    });
    instance.managed.child.once('exit', (code, signal) => {
      if (current !== instance || !isWanted) return;
      current = null;
      options.onUnexpectedExit(`${options.name} exited by itself (code ${code}, signal ${signal}); restarting it`);
      setTimeout(() => {
        if (isWanted && current === null) spawnInstance();
      }, RESTART_DELAY_MS);
    });
  }

  return {
    name: options.name,
    isRunning: () => isAlive(current?.managed ?? null),
    /** Resolves once the (possibly restarted) process is ready. */
    async start() {
      isWanted = true;
      if (!current) spawnInstance();
      const deadline = Date.now() + READY_TIMEOUT_MS;
      while (Date.now() < deadline) {
        const instance = current;
        if (instance && isAlive(instance.managed)) {
          const isReady = options.probe ? await options.probe().catch(() => false) : options.isReady!(instance.output);
          if (isReady && current === instance) return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error(`${options.name} did not become ready within ${READY_TIMEOUT_MS} ms`);
    },
    async kill(signal = 'SIGKILL') {
      isWanted = false;
      const managed = current?.managed ?? null;
      current = null;
      await killAndWait(managed, signal);
    },
    async stop() {
      isWanted = false;
      const managed = current?.managed ?? null;
      current = null;
      await managed?.stop(15_000);
    },
  };
}

function isAlive(managed: ManagedProcess | null): boolean {
  return managed !== null && managed.child.exitCode === null && managed.child.signalCode === null;
}

async function killAndWait(managed: ManagedProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (!managed || !isAlive(managed)) return;
  const exited = new Promise((resolve) => managed.child.once('exit', resolve));
  managed.child.kill(signal);
  await exited;
}
