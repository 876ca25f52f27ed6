import { Runtime, bundleWorkflowCode, type Worker } from '@temporalio/worker';
import { createAiConfig, type AiConfig } from '../integrations/ai/index.ts';
import { createProviderConfig, type ProviderConfig } from '../integrations/providers/config.ts';
import { loadConfig, type Config } from '../lib/config.ts';
import { exitOnConfigError, loadDotEnv } from '../lib/env.ts';
import { freePort } from '../lib/free-port.ts';
import { createLogger } from '../lib/logger.ts';
import { WORKFLOWS_PATH, createResearchWorker } from './create-worker.ts';
import { buildActivityDeps } from './dependencies.ts';
import { startWorkerMetricsServer } from './metrics-server.ts';
import { installTemporalLogging } from './telemetry.ts';
import { createSweepWorker, ensureSweepSchedule } from './sweep-schedule.ts';
import { ensurePurgeSchedule } from './purge-schedule.ts';
import { loadMailConfig, type MailConfig } from '../integrations/mail/config.ts';
import { createMailer } from '../integrations/mail/mailer.ts';
import { createMailOutboxWorker, ensureMailOutboxSchedule } from './mail-outbox-schedule.ts';
import { loadWebhookConfig, type WebhookConfig } from '../integrations/webhooks/config.ts';
import { startWebhookDispatcher } from '../services/webhook-dispatch.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import { startCrmWorker } from './crm-worker.ts';
import { startListRunRelay } from '../services/list-runs.ts';
import { startWorkflowStartRelay } from '../services/workflow-start-relay.ts';

// Every setting is read before anything connects: a bad value is one line on stderr.
let config: Config;
let outside: { providers: ProviderConfig; ai: AiConfig };
let mail: MailConfig;
let webhooks: WebhookConfig;
try {
  loadDotEnv();
  config = loadConfig();
  outside = { providers: createProviderConfig(process.env), ai: createAiConfig(process.env) };
  mail = loadMailConfig();
  webhooks = loadWebhookConfig();
} catch (error) {
  exitOnConfigError('worker', error);
}

const logger = createLogger('worker', config.logLevel);
// The runtime's exporter listens on loopback only; the worker's own port serves both.
const runtimeMetricsAddress = config.workerMetrics ? `127.0.0.1:${await freePort()}` : null;
installTemporalLogging(logger, 'WARN', runtimeMetricsAddress ? { prometheusAddress: runtimeMetricsAddress } : {});

// Ctrl-C may come while the worker is still starting: it then stops once started.
let isStopping = false;
const workers: Worker[] = [];
function stop() {
  isStopping = true;
  // A worker already stopping (a second signal) is left alone: shutdown() would throw.
  for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

const deps = await buildActivityDeps(config, logger, outside);
// The dashboard's address: usage alerts for credits taken by list and CRM runs link to its Billing page.
const publicUrl = (process.env.PUBLIC_URL ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
// Bundled once for both workers.
const workflowBundle = { code: (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: Runtime.instance().logger })).code };
const { worker, connection } = await createResearchWorker({ config, ...deps, publicUrl, workflowBundle });
const sweeper = await createSweepWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps });
await ensureSweepSchedule(deps.temporal, config.temporal.taskQueue, config.researchSweepIntervalMs);
await ensurePurgeSchedule(deps.temporal, config.temporal.taskQueue);
const mailer = createMailer(mail);
const mailSender = await createMailOutboxWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps: { orm: deps.orm, mailer, clock: deps.clock } });
await ensureMailOutboxSchedule(deps.temporal, config.temporal.taskQueue);
const webhookSender = await createWebhookWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps: { orm: deps.orm, webhooks, clock: deps.clock } });
// CRM syncs on their own task queue (issue 18); null where no HubSpot app is configured.
const crmSync = await startCrmWorker({
  connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, orm: deps.orm, temporal: deps.temporal,
  env: process.env, publicUrl, clock: deps.clock, logger,
});
workers.push(worker, sweeper, mailSender, webhookSender, ...(crmSync ? [crmSync] : []));
const running = Promise.all(workers.map((each) => each.run()));
// Starts a delivery workflow for each ended job's webhook deliveries (written by a trigger as the job ends).
const webhookDispatcher = await startWebhookDispatcher({ orm: deps.orm, temporal: deps.temporal, databaseUrl: config.databaseUrl, researchTaskQueue: config.temporal.taskQueue, logger });
// Beside the API's: accepted jobs get their workflow even while no API runs.
const relay = startWorkflowStartRelay({ ...deps, taskQueue: config.temporal.taskQueue, deadlineMs: config.researchDeadlineMs, logger });
// Lists whose run a crashed or cut-off API did not start (issue 20).
const listRelay = startListRunRelay({ ...deps, taskQueue: config.temporal.taskQueue, deadlineMs: config.researchDeadlineMs, logger });
const metricsServer = config.workerMetrics
  ? await startWorkerMetricsServer({
      ...config.workerMetrics,
      runtimeMetricsUrl: runtimeMetricsAddress && `http://${runtimeMetricsAddress}/metrics`,
      workers: { research: worker, sweeper, mailOutbox: mailSender },
    })
  : null;
logger.info({ taskQueue: config.temporal.taskQueue, temporal: config.temporal.address, metrics: metricsServer && `${metricsServer.url}/metrics` }, 'worker running');
if (isStopping) stop();

await running;
await webhookDispatcher.stop();
await listRelay.stop();
await relay.stop();
await metricsServer?.close();
mailer.close();
await connection.close();
await deps.temporal.connection.close();
await deps.orm.close();
logger.info('worker stopped');
