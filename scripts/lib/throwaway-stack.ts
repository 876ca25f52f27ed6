import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initOrm } from '../../db/orm.ts';
import type { PlanName } from '../../domain/billing/plans.ts';
import type { ProductContext } from '../../domain/research/product-context.ts';
import { createAccount } from '../../services/accounts/accounts.ts';
import { createApiKey } from '../../services/accounts/api-keys.ts';
import { startProcess, waitFor, type ManagedProcess } from './child-process.ts';
import { freePort } from './free-port.ts';
import { ROOT, startLocalServices } from './local-services.ts';

export interface ThrowawayStack {
  apiUrl: string;
  /** A key of a fresh account on `plan`, tied to a sample product context. */
  apiKey: string;
  /** Where the services write their logs (`logs/api.log`, …). */
  workDir: string;
  stop(): Promise<void>;
}

const SAMPLE_PRODUCT_CONTEXT: ProductContext = {
  name: 'PipelineIQ',
  description: 'Revenue forecasting for B2B sales teams',
  keyFeatures: ['pipeline forecasting', 'CRM sync'],
  targetCustomers: ['sales leaders', 'revenue operations'],
  productUrl: null,
};

// Variables that would point the stack at shared or real systems.
const OUTSIDE_SYSTEMS = /^(DATABASE_URL|TEMPORAL_ADDRESS|OPENAI_.*|AI_SANDBOX_URL|PROVIDER_SANDBOX_URL|PDL_API_KEY|APOLLO_API_KEY|PORT)$/;

/**
 * The whole system as `npm run dev` runs it, but in a throwaway directory on
 * free ports, always on the sandboxes: PostgreSQL, Temporal dev server, the
 * provider world and the model sandbox, the worker and the API as processes.
 */
export async function startThrowawayStack(options: { plan: PlanName; log: (line: string) => void; apiEnv?: Record<string, string> }): Promise<ThrowawayStack> {
  const workDir = mkdtempSync(join(tmpdir(), 'prospect-stack-'));
  chmodSync(workDir, 0o755); // the postgres system user must reach its data directory inside
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !OUTSIDE_SYSTEMS.test(name)));
  const ports = {
    postgres: await freePort(),
    temporal: await freePort(),
    temporalUi: null,
    providerWorld: await freePort(),
    modelSandbox: await freePort(),
  };
  const services = await startLocalServices({ dataDir: workDir, ports, env, log: options.log });
  const apps: ManagedProcess[] = [];
  const stop = async () => {
    for (const app of apps.reverse()) await app.stop();
    await services.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    const apiPort = await freePort();
    const appEnv = { ...env, ...services.env, PORT: String(apiPort) };
    const node = (entry: string) => ['--disable-warning=ExperimentalWarning', join(ROOT, entry)];
    const logFile = (name: string) => join(workDir, 'logs', `${name}.log`);
    apps.push(startProcess('worker', process.execPath, node('worker/main.ts'), { env: appEnv, logFile: logFile('worker') }));
    apps.push(startProcess('api', process.execPath, node('api/main.ts'), { env: { ...appEnv, ...options.apiEnv }, logFile: logFile('api') }));
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitFor('API', async () => (await fetch(`${apiUrl}/healthz`)).ok, 60_000);

    const orm = await initOrm(services.env.DATABASE_URL, { migrate: false, poolMax: 1 });
    try {
      const account = await createAccount(orm.em.fork(), { ownerEmail: 'fuzz@example.com', plan: options.plan, language: 'en' }, new Date());
      const { key } = await createApiKey(orm.em.fork(), { accountId: account.id, productContext: SAMPLE_PRODUCT_CONTEXT });
      return { apiUrl, apiKey: key, workDir, stop };
    } finally {
      await orm.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }
}
