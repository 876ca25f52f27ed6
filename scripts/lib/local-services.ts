import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { initOrm } from '../../db/orm.ts';
import { startProcess, waitFor, type ManagedProcess } from './child-process.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from './postgres-server.ts';
import { ensureTemporalCli, startTemporalDevServer, temporalIsServing } from './temporal-server.ts';

export const ROOT = join(import.meta.dirname, '..', '..');

export interface LocalServicesOptions {
  dataDir: string;
  ports: { postgres: number; temporal: number; temporalUi: number | null; providerWorld: number; modelSandbox: number };
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** The Stripe stand-in (sandbox/stripe) on this port, posting events to `webhookUrl`, unless STRIPE_SECRET_KEY is set. */
  stripe?: { port: number; webhookUrl: string };
  /** SQLite pragmas for the Temporal dev server's state file (throwaway stacks, e.g. `synchronous=off`). */
  temporalSqlitePragmas?: string[];
}

export interface LocalServices {
  /** Variables that point the API and the worker at the services. */
  env: Record<string, string>;
  temporalUiUrl: string | null;
  stop(): Promise<void>;
}

/**
 * Everything the API and the worker need, on embedded defaults: PostgreSQL and
 * the Temporal dev server (unless DATABASE_URL / TEMPORAL_ADDRESS point
 * elsewhere), and the sandboxes standing in for providers and the model
 * (unless real endpoints are configured). Migrations are applied before return.
 */
export async function startLocalServices(options: LocalServicesOptions): Promise<LocalServices> {
  const { dataDir, ports, env, log } = options;
  const logDir = join(dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const processes: ManagedProcess[] = [];
  let postgres: EmbeddedPostgresServer | null = null;
  const stop = async () => {
    for (const child of processes.reverse()) await child.stop();
    await postgres?.stop();
  };

  try {
    const out: Record<string, string> = {};
    if (env.DATABASE_URL) {
      out.DATABASE_URL = env.DATABASE_URL;
    } else {
      log(`Starting PostgreSQL (embedded, data in ${join(dataDir, 'postgres')}, port ${ports.postgres})…`);
      postgres = await startEmbeddedPostgres({
        dataDir: join(dataDir, 'postgres'),
        port: ports.postgres,
        database: 'prospect',
        logFile: join(logDir, 'postgres.log'),
      });
      out.DATABASE_URL = postgres.url;
    }

    let temporalUiUrl: string | null = null;
    const localTemporal = `127.0.0.1:${ports.temporal}`;
    if (env.TEMPORAL_ADDRESS) {
      out.TEMPORAL_ADDRESS = env.TEMPORAL_ADDRESS;
    } else if (await temporalIsServing(localTemporal).catch(() => false)) {
      // Left over from a run that was killed: same state file, so reuse it.
      log(`Reusing the Temporal server already running at ${localTemporal}.`);
      out.TEMPORAL_ADDRESS = localTemporal;
      temporalUiUrl = ports.temporalUi === null ? null : `http://127.0.0.1:${ports.temporalUi}`;
    } else {
      const binary = ensureTemporalCli(ROOT);
      log(`Starting the Temporal dev server (state in ${join(dataDir, 'temporal.db')}, log in ${join(logDir, 'temporal.log')})…`);
      const temporal = await startTemporalDevServer({
        binary,
        port: ports.temporal,
        uiPort: ports.temporalUi,
        dbFile: join(dataDir, 'temporal.db'),
        sqlitePragmas: options.temporalSqlitePragmas,
        logFile: join(logDir, 'temporal.log'),
      });
      processes.push(temporal.process);
      out.TEMPORAL_ADDRESS = temporal.address;
      temporalUiUrl = temporal.uiUrl;
    }

    if (!hasRealProviders(env) && !env.PROVIDER_SANDBOX_URL) {
      out.PROVIDER_SANDBOX_URL = await startSandbox(processes, 'provider-world', 'sandbox/provider-world/main.ts', ports.providerWorld, logDir);
    }
    if (!env.OPENAI_API_KEY && !env.OPENAI_BASE_URL && !env.AI_SANDBOX_URL) {
      out.AI_SANDBOX_URL = `${await startSandbox(processes, 'model-sandbox', 'sandbox/model/main.ts', ports.modelSandbox, logDir)}/v1`;
    }

    if (options.stripe && !env.STRIPE_SECRET_KEY) {
      // A local signing secret: the stand-in signs with it, the API verifies with it.
      const webhookSecret = env.STRIPE_WEBHOOK_SECRET || 'whsec_local_stripe_sandbox';
      out.STRIPE_API_BASE = await startSandbox(processes, 'stripe-sandbox', 'sandbox/stripe/main.ts', options.stripe.port, logDir, {
        STRIPE_WEBHOOK_URL: options.stripe.webhookUrl,
        STRIPE_WEBHOOK_SECRET: webhookSecret,
      });
      out.STRIPE_SECRET_KEY = 'sk_test_local_stripe_sandbox';
      out.STRIPE_WEBHOOK_SECRET = webhookSecret;
    }

    log('Applying database migrations…');
    const orm = await initOrm(out.DATABASE_URL, { migrate: true, poolMax: 2 });
    await orm.close();
    return { env: out, temporalUiUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function hasRealProviders(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.PDL_API_KEY || env.APOLLO_API_KEY);
}

async function startSandbox(processes: ManagedProcess[], name: string, entry: string, port: number, logDir: string, extraEnv: Record<string, string> = {}): Promise<string> {
  const url = `http://127.0.0.1:${port}`;
  if (await isAnswering(url)) return url;
  const child = startProcess(name, process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, entry)], {
    env: { ...process.env, ...extraEnv, PORT: String(port) },
    logFile: join(logDir, `${name}.log`),
  });
  processes.push(child);
  await waitFor(name, () => isAnswering(url), 30_000);
  return url;
}

async function isAnswering(sandboxUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${sandboxUrl}/__admin/calls`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}
