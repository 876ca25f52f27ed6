import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { initOrm } from '../../db/orm.ts';
import { withoutBlanks } from '../../lib/env.ts';
import { freePort } from '../../lib/free-port.ts';
import { adoptProcess, startProcess, waitFor, type ManagedProcess } from './child-process.ts';
import { forgetOwnProcess, isPortInUse, ownProcess, PortInUseError, recordOwnProcess } from './port-owner.ts';
import { postgresDataDirectory, startEmbeddedPostgres, type EmbeddedPostgresServer } from './postgres-server.ts';
import { wantedSandboxes, type SandboxSpec } from './sandboxes.ts';
import { ensureTemporalCli, startTemporalDevServer, temporalIsServing } from './temporal-server.ts';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface LocalServicesOptions {
  dataDir: string;
  /**
   * PostgreSQL, Temporal and its UI (null: headless), and sandbox ports by
   * their key (scripts/lib/sandboxes.ts); a sandbox without one gets a free port.
   */
  ports: { postgres: number; temporal: number; temporalUi: number | null } & Record<string, number | null>;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** The API's base URL when the caller runs it on a known port (stand-ins that call it back need it). */
  apiUrl?: string;
  /** The variable behind a port, for the message when it is taken (`npm run dev`). */
  variableOf?: (port: number) => string;
  /** Children in their own process group, so that a terminal's Ctrl-C reaches only the caller, which stops them in order. */
  isolateChildren?: boolean;
  /** SQLite pragmas for the Temporal dev server's state file (throwaway stacks, e.g. `synchronous=off`). */
  temporalSqlitePragmas?: string[];
  /** Dynamic config for the Temporal dev server over the project's defaults (bench experiments). */
  temporalDynamicConfig?: Record<string, string | number | boolean>;
}

export interface LocalServices {
  /** Variables that point the API and the worker at the services. */
  env: Record<string, string>;
  temporalUiUrl: string | null;
  /** Base URL of each sandbox started or reused, by name (for the Ready banner). */
  sandboxUrls: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Everything the API and the worker need, on embedded defaults: PostgreSQL and
 * the Temporal dev server (unless DATABASE_URL / TEMPORAL_ADDRESS point
 * elsewhere), and the sandboxes standing in for outside systems (unless real
 * endpoints are configured). A service already on a port is reused only when
 * it is this checkout's own (its data directory); anything else there is a
 * PortInUseError naming the port and its variable. Migrations are applied
 * before return.
 */
export async function startLocalServices(options: LocalServicesOptions): Promise<LocalServices> {
  const { dataDir, ports, log } = options;
  const env = withoutBlanks(options.env);
  const variableOf = options.variableOf ?? ((port: number) => `the variable for port ${port}`);
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  // Started here, or left by a killed run of this checkout and reused: stopped alike.
  const processes: Array<{ process: Pick<ManagedProcess, 'stop'>; name: string }> = [];
  let postgres: EmbeddedPostgresServer | null = null;
  let reusedPostgres: Pick<ManagedProcess, 'stop'> | null = null;
  const stop = async () => {
    for (const { process: child, name } of processes.reverse()) {
      await child.stop();
      forgetOwnProcess(dataDir, name);
    }
    await postgres?.stop();
    await reusedPostgres?.stop(15_000);
  };
  const detached = options.isolateChildren ?? false;

  try {
    const out: Record<string, string> = {};
    if (env.DATABASE_URL) {
      out.DATABASE_URL = env.DATABASE_URL;
    } else {
      const postgresDir = join(dataDir, 'postgres');
      if (await isPortInUse(ports.postgres)) {
        const servedDir = await postgresDataDirectory(ports.postgres);
        if (!servedDir || !isSameDirectory(servedDir, postgresDir)) throw new PortInUseError(ports.postgres, variableOf(ports.postgres), `PostgreSQL (data in ${postgresDir})`);
        log(`Reusing this checkout's PostgreSQL on port ${ports.postgres}.`);
        // postmaster.pid's first line; SIGINT is PostgreSQL's fast shutdown.
        reusedPostgres = adoptProcess('postgres', Number(readFileSync(join(postgresDir, 'postmaster.pid'), 'utf8').split('\n')[0]), 'SIGINT');
      } else {
        log(`Starting PostgreSQL (embedded, data in ${postgresDir}, port ${ports.postgres})…`);
      }
      postgres = await startEmbeddedPostgres({ dataDir: postgresDir, port: ports.postgres, database: 'prospect', logFile: join(logDir, 'postgres.log'), detached });
      out.DATABASE_URL = postgres.url;
    }

    let temporalUiUrl: string | null = null;
    if (env.TEMPORAL_ADDRESS) {
      out.TEMPORAL_ADDRESS = env.TEMPORAL_ADDRESS;
    } else {
      const dbFile = join(dataDir, 'temporal.db');
      const address = `127.0.0.1:${ports.temporal}`;
      const uiUrl = ports.temporalUi === null ? null : `http://127.0.0.1:${ports.temporalUi}`;
      const leftover = ownProcess(dataDir, 'temporal');
      if (leftover !== null && (await temporalIsServing(address).catch(() => false))) {
        // Left over from a run that was killed: same state file, so reuse it.
        log(`Reusing this checkout's Temporal dev server at ${address}.`);
        processes.push({ process: adoptProcess('temporal', leftover), name: 'temporal' });
      } else {
        for (const port of [ports.temporal, ports.temporalUi]) {
          if (port !== null && (await isPortInUse(port))) throw new PortInUseError(port, variableOf(port), `Temporal dev server (state in ${dbFile})`);
        }
        const binary = ensureTemporalCli(ROOT);
        log(`Starting the Temporal dev server (state in ${dbFile}, log in ${join(logDir, 'temporal.log')})…`);
        const temporal = await startTemporalDevServer({
          binary,
          port: ports.temporal,
          uiPort: ports.temporalUi,
          dbFile,
          sqlitePragmas: options.temporalSqlitePragmas,
          dynamicConfig: options.temporalDynamicConfig,
          logFile: join(logDir, 'temporal.log'),
          detached,
        });
        processes.push({ process: temporal.process, name: 'temporal' });
        recordOwnProcess(dataDir, 'temporal', temporal.process.child.pid!, dbFile);
      }
      out.TEMPORAL_ADDRESS = address;
      temporalUiUrl = uiUrl;
    }

    const sandboxUrls: Record<string, string> = {};
    for (const { sandbox, context } of wantedSandboxes(env, options.apiUrl ?? null, dataDir)) {
      const sandboxPorts: Record<string, number> = {};
      for (const { key } of sandbox.ports) sandboxPorts[key] = ports[key] ?? (await freePort());
      const url = await startSandbox(sandbox, sandboxPorts, { dataDir, logDir, processes, variableOf, detached, log, childEnv: sandbox.childEnv(sandboxPorts, context) });
      sandboxUrls[sandbox.name] = url;
      Object.assign(out, sandbox.appEnv(url, sandboxPorts, context));
    }

    log('Applying database migrations…');
    const orm = await initOrm(out.DATABASE_URL, { migrate: true, poolMax: 2 });
    await orm.close();
    return { env: out, temporalUiUrl, sandboxUrls, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function isSameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

async function startSandbox(
  sandbox: SandboxSpec,
  ports: Record<string, number>,
  context: {
    dataDir: string;
    logDir: string;
    processes: Array<{ process: Pick<ManagedProcess, 'stop'>; name: string }>;
    variableOf: (port: number) => string;
    detached: boolean;
    log: (line: string) => void;
    childEnv: Record<string, string>;
  },
): Promise<string> {
  const httpPort = ports[sandbox.ports[0].key];
  const url = `http://127.0.0.1:${httpPort}`;
  const entry = join(ROOT, sandbox.entry);
  const leftover = ownProcess(context.dataDir, sandbox.name);
  if (leftover !== null && (await isAnswering(url, sandbox.probePath))) {
    context.log(`Reusing this checkout's ${sandbox.name} at ${url}.`);
    context.processes.push({ process: adoptProcess(sandbox.name, leftover), name: sandbox.name });
    return url;
  }
  for (const port of Object.values(ports)) {
    if (await isPortInUse(port)) throw new PortInUseError(port, context.variableOf(port), `${sandbox.name} (${sandbox.entry})`);
  }
  const child = startProcess(sandbox.name, process.execPath, ['--disable-warning=ExperimentalWarning', entry], {
    env: { ...process.env, ...context.childEnv },
    logFile: join(context.logDir, `${sandbox.name}.log`),
    detached: context.detached,
  });
  context.processes.push({ process: child, name: sandbox.name });
  recordOwnProcess(context.dataDir, sandbox.name, child.child.pid!, entry);
  await waitFor(sandbox.name, () => isAnswering(url, sandbox.probePath), 30_000);
  return url;
}

async function isAnswering(baseUrl: string, path: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}
