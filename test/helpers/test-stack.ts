import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import type { NativeConnection, Worker } from '@temporalio/worker';
import { bootstrapApi, type ApiHandle } from '../../api/server.ts';
import type { ApiDeps } from '../../api/deps.ts';
import { initOrm, type Orm } from '../../db/orm.ts';
import type { InsightsGenerator } from '../../domain/research/insights.ts';
import type { PlanName } from '../../domain/billing/plans.ts';
import type { Language } from '../../domain/research/languages.ts';
import type { ProductContext } from '../../domain/research/product-context.ts';
import type { EnrichmentSources } from '../../integrations/providers/enrichment-sources.ts';
import { createAiConfig, createInsightsGenerator } from '../../integrations/ai/index.ts';
import { createEnrichmentSources } from '../../integrations/providers/waterfall-sources.ts';
import { createProviderConfig } from '../../integrations/providers/config.ts';
import { loadConfig, type Config } from '../../lib/config.ts';
import { createLogger, type Logger } from '../../lib/logger.ts';
import { startModelSandbox, type ModelSandbox } from '../../sandbox/model/model-sandbox.ts';
import { startProviderWorld, type ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { createAccount } from '../../services/accounts/accounts.ts';
import { createApiKey } from '../../services/accounts/api-keys.ts';
import { createResearchWorker } from '../../worker/create-worker.ts';
import { createCallTurns } from '../../activities/call-turns.ts';
import type { CallCaps } from '../../domain/research/call-caps.ts';
import { installTemporalLogging } from '../../worker/telemetry.ts';
import { createTestClock, type TestClock } from './test-clock.ts';
import { createApiCaller, type ApiCaller } from './api-caller.ts';

export interface TestStackOptions {
  deadlineMs?: number;
  backstopGraceMs?: number;
  /** Start without a worker (jobs stay `queued`); `startWorker()` adds one later. */
  withWorker?: boolean;
  /** Replace the real provider clients (e.g. to make a part throw). */
  sources?: (real: EnrichmentSources) => EnrichmentSources;
  generator?: (real: InsightsGenerator) => InsightsGenerator;
  /** The worker's caps on each account's provider and model calls in flight; default: the configured ones. */
  callCaps?: CallCaps;
  /** More environment for the API (the dashboard's and the mailer's settings, e.g. the test mail sandbox). */
  apiEnv?: Record<string, string>;
  /** The API's test-only MCP registrations (the conformance suite's fixtures); production never has them. */
  mcpTestFixtures?: ApiDeps['mcpTestFixtures'];
}

export interface TestStack {
  api: ApiCaller;
  apiUrl: string;
  config: Config;
  orm: Orm;
  temporal: Client;
  providerWorld: ProviderWorldHandle;
  model: ModelSandbox;
  clock: TestClock;
  /** The logger the API was given (silent unless TEST_LOG_LEVEL is set): spy on it to see what was logged. */
  logger: Logger;
  startWorker(): Promise<void>;
  stopWorker(): Promise<void>;
  createAccount(plan?: PlanName, language?: Language): Promise<number>;
  createKey(accountId: number, product?: ProductContext | null): Promise<{ key: string; keyId: number }>;
  /** An account on `plan` with one key tied to a product context. */
  createCustomer(plan?: PlanName, language?: Language): Promise<{ accountId: number; key: string; keyId: number }>;
  stop(): Promise<void>;
}

export const SAMPLE_PRODUCT: ProductContext = {
  name: 'PipelineIQ',
  description: 'Revenue forecasting for B2B sales teams',
  keyFeatures: ['pipeline forecasting', 'CRM sync'],
  targetCustomers: ['sales leaders', 'revenue operations'],
  productUrl: null,
};

/**
 * A whole research stack for one test file: its own database (migrated), its
 * own task queue on the shared Temporal server, the sandboxes in-process, the
 * real API over HTTP and a real worker with the real provider and AI clients.
 */
export async function startTestStack(options: TestStackOptions = {}): Promise<TestStack> {
  const adminUrl = requiredEnv('TEST_POSTGRES_ADMIN_URL');
  const suffix = randomBytes(4).toString('hex');
  const database = `test_${suffix}`;
  await adminQuery(adminUrl, `create database ${database}`);
  const databaseUrl = adminUrl.replace(/\/[^/]+$/, `/${database}`);

  const clock = createTestClock();
  const logger = createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent');
  installTemporalLogging(logger, 'WARN');
  const [providerWorld, model] = await Promise.all([startProviderWorld({ port: 0 }), startModelSandbox({ port: 0 })]);
  const env = { ...process.env, PROVIDER_SANDBOX_URL: providerWorld.url, AI_SANDBOX_URL: model.url, OPENAI_API_KEY: '', OPENAI_BASE_URL: '', AI_MAX_RETRIES: '0' };
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: requiredEnv('TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE: `research-${suffix}`,
    RESEARCH_DEADLINE_MS: String(options.deadlineMs ?? 180_000),
    RESEARCH_BACKSTOP_GRACE_MS: String(options.backstopGraceMs ?? 15_000),
    PORT: '0',
    DB_POOL_MAX: '10',
  });
  const orm = await initOrm(databaseUrl, { migrate: true, poolMax: 5 });
  const api = await bootstrapApi(config, logger, clock.now, { ...env, ...options.apiEnv }, { mcpTestFixtures: options.mcpTestFixtures });
  const temporal = new Client({ connection: await Connection.connect({ address: config.temporal.address }) });

  const realSources = createEnrichmentSources(createProviderConfig(env), logger);
  const realGenerator = createInsightsGenerator(createAiConfig(env), logger);
  const sources = options.sources ? options.sources(realSources) : realSources;
  const generator = options.generator ? options.generator(realGenerator) : realGenerator;

  let running: { worker: Worker; connection: NativeConnection; done: Promise<void> } | null = null;
  async function startWorker() {
    if (running) return;
    const { worker, connection } = await createResearchWorker({
      config,
      orm,
      clock: clock.now,
      sources,
      generator,
      temporal,
      staleAfterMs: config.researchOverdueAfterMs,
      callTurns: createCallTurns(options.callCaps ?? config.callCaps),
      workflowBundle: { codePath: requiredEnv('TEST_WORKFLOW_BUNDLE') },
    });
    running = { worker, connection, done: worker.run() };
  }
  async function stopWorker() {
    if (!running) return;
    running.worker.shutdown();
    await running.done;
    await running.connection.close();
    running = null;
  }
  if (options.withWorker ?? true) await startWorker();

  const stack: TestStack = {
    api: createApiCaller(api.url),
    apiUrl: api.url,
    config,
    orm,
    temporal,
    providerWorld,
    model,
    clock,
    logger,
    startWorker,
    stopWorker,
    async createAccount(plan = 'growth', language = 'en') {
      const account = await createAccount(orm.em.fork(), { ownerEmail: `owner-${randomBytes(5).toString('hex')}@example.com`, plan, language }, clock.now());
      return account.id;
    },
    async createKey(accountId, product = SAMPLE_PRODUCT) {
      const created = await createApiKey(orm.em.fork(), { accountId, productContext: product });
      return { key: created.key, keyId: created.keyId };
    },
    async createCustomer(plan = 'growth', language = 'en') {
      const accountId = await stack.createAccount(plan, language);
      return { accountId, ...(await stack.createKey(accountId)) };
    },
    async stop() {
      await stopWorker();
      await api.close();
      await temporal.connection.close();
      await orm.close();
      await Promise.all([providerWorld.close(), model.close()]);
      await adminQuery(adminUrl, `drop database if exists ${database} with (force)`);
    },
  };
  return stack;
}

/** One statement as the PostgreSQL cluster's admin (creating and dropping a test's database). */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through vitest's global setup (npm test)`);
  return value;
}

/** Real-looking people of the sandbox world, picked deterministically. */
export function samplePerson(stack: TestStack, filter: Parameters<ProviderWorldHandle['world']['samplePeople']>[0] = {}, index = 0) {
  const person = stack.providerWorld.world.samplePeople(filter, index + 1)[index];
  if (!person) throw new Error(`no sandbox person matches ${JSON.stringify(filter)}`);
  return person;
}
