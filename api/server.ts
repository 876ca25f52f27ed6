import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer, type RequestListener, type Server } from 'node:http';
import { initOrm } from '../db/orm.ts';
import { serveOperationalState } from '../lib/metrics.ts';
import { readOperationalState } from './operational-state.ts';
import { JobEndNotifications } from '../db/job-end-notifications.ts';
import { createStatusPool } from '../db/status-pool.ts';
import { CompletedReplyCache } from '../services/research/completed-reply-cache.ts';
import { KeyAndJobStatusReader } from '../services/research/job-status.ts';
import { KeyLastUse } from '../services/accounts/key-last-use.ts';
import { startWorkflowStartRelay } from '../services/research/workflow-start-relay.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { connectTemporalClient } from '../lib/temporal-client.ts';
import { createApp } from './app.ts';
import type { ApiDeps } from './deps.ts';
import { loadDashboardConfig } from './dashboard/config.ts';
import { createDashboard } from './dashboard/index.ts';
import { createAgentAuthorization } from './mcp/agent-tokens.ts';
import { createProductContextDrafter } from './dashboard/product-drafts.ts';
import { dashboardPages } from './dashboard/static.ts';
import { createMailer } from '../integrations/mail/mailer.ts';
import { billingFromEnv } from '../integrations/stripe/index.ts';
import { loadMailConfig } from '../integrations/mail/config.ts';
import { loadWebhookConfig } from '../integrations/webhooks/config.ts';
import { createCrm } from '../services/crm/crm.ts';

/**
 * Replies run to ~6 KiB: the ~1,400 most recently read completed jobs, the
 * ones clients still poll. Small, so the API's memory stays flat (`npm run bench`).
 */
const COMPLETED_REPLY_CACHE_BYTES = 8 * 1024 * 1024;

export interface ApiHandle {
  url: string;
  server: Server;
  /**
   * Drains, then closes: readiness turns false, after the readiness delay the
   * API stops accepting connections, long polls answer at once, and requests
   * in flight get the grace time to finish before their connections are cut.
   */
  close(): Promise<void>;
}

/** Connects PostgreSQL (applying migrations) and Temporal, then listens. */
export async function bootstrapApi(
  config: Config,
  logger: Logger,
  clock: () => Date = () => new Date(),
  env: NodeJS.ProcessEnv = process.env,
  testHooks: Pick<ApiDeps, 'mcpTestFixtures'> = {},
): Promise<ApiHandle> {
  const orm = await initOrm(config.databaseUrl, { poolMax: config.dbPoolMax });
  serveOperationalState(() => readOperationalState(orm.em.fork(), clock()));
  const statusPool = createStatusPool(config.databaseUrl, logger);
  const temporal = await connectTemporalClient(config);
  const statusReader = new KeyAndJobStatusReader(statusPool, new CompletedReplyCache(COMPLETED_REPLY_CACHE_BYTES));
  const jobEnds = new JobEndNotifications(config.databaseUrl, logger);
  await jobEnds.start();
  // Listening first: the dashboard's links and origin check need the address when PUBLIC_URL is unset.
  // Until the app is assembled (Vite's dev server can take seconds), requests get a 503 to retry, never a hang.
  let handleRequest: RequestListener = (_req, res) => {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":"starting","message":"The API is starting; retry in a second."}');
  };
  const server = createServer((req, res) => handleRequest(req, res));
  server.listen(config.port, config.host);
  await once(server, 'listening');
  // Keep-alive longer than typical load-balancer idle timeouts avoids resets under load.
  server.keepAliveTimeout = 65_000;
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  const dashboardConfig = loadDashboardConfig(env, url);
  const mailer = createMailer(loadMailConfig(env));
  const billing = billingFromEnv(env);
  const crm = createCrm({ orm, temporal, env, publicUrl: dashboardConfig.publicUrl, clock, researchTaskQueue: config.temporal.taskQueue, fairnessWeights: config.fairnessWeights, runsPerAccount: config.crmRunsPerAccount, logger });
  const dashboard = createDashboard({
    orm,
    databaseUrl: config.databaseUrl,
    temporal,
    config: dashboardConfig,
    mailer,
    logger,
    clock,
    draftProductContext: createProductContextDrafter(env, logger),
    billing,
    crm,
    webhooks: loadWebhookConfig(env),
    lists: { taskQueue: config.temporal.taskQueue, deadlineMs: config.researchDeadlineMs, fairnessWeights: config.fairnessWeights },
  });
  const pages = await dashboardPages(dashboardConfig, server);
  const keyLastUse = new KeyLastUse(clock);
  let isDraining = false;
  const app = createApp({ orm, statusReader, jobEnds, temporal, config, logger, clock, keyLastUse, publicUrl: dashboardConfig.publicUrl, billing, crm, agentAuthorization: createAgentAuthorization(dashboard.auth, dashboardConfig.publicUrl), isDraining: () => isDraining, ...testHooks }, [...dashboard.middleware, ...(pages ? [pages] : [])]);
  handleRequest = app.callback();
  // Starts the workflows of accepted jobs whose start was missed (a crash, Temporal unreachable).
  const relay = startWorkflowStartRelay({ orm, temporal, taskQueue: config.temporal.taskQueue, deadlineMs: config.researchDeadlineMs, fairnessWeights: config.fairnessWeights, clock, logger });
  logger.info({ url }, 'API listening');
  return {
    url,
    server,
    async close() {
      isDraining = true;
      if (config.shutdown.readinessDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdown.readinessDelayMs));
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      jobEnds.interruptAll();
      let cut: NodeJS.Timeout | undefined;
      // Past the grace time, what is still open is cut (an upgraded socket, such as the dev dashboard's, is not waited for).
      const graceOver = new Promise<void>((resolve) => {
        cut = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, config.shutdown.graceMs);
      });
      // A kept-alive connection whose request began before the drain goes idle after its reply: close it then.
      const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
      await Promise.race([closed, graceOver]);
      clearInterval(idleSweep);
      clearTimeout(cut);
      await relay.stop();
      await dashboard.close();
      mailer.close();
      await temporal.connection.close();
      await jobEnds.close();
      await statusPool.end();
      await orm.close();
    },
  };
}
