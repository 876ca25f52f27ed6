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
// Bundled once for both workers.
const workflowBundle = { code: (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: Runtime.instance().logger })).code };
const { worker, connection } = await createResearchWorker({ config, ...deps, workflowBundle });
const sweeper = await createSweepWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps });
await ensureSweepSchedule(deps.temporal, config.temporal.taskQueue, config.researchSweepIntervalMs);
await ensurePurgeSchedule(deps.temporal, config.temporal.taskQueue);
const mailer = createMailer(mail);
const mailSender = await createMailOutboxWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps: { orm: deps.orm, mailer, clock: deps.clock } });
await ensureMailOutboxSchedule(deps.temporal, config.temporal.taskQueue);
const webhookSender = await createWebhookWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps: { orm: deps.orm, webhooks, clock: deps.clock } });
workers.push(worker, sweeper, mailSender, webhookSender);
const running = Promise.all(workers.map((each) => each.run()));
// Starts a delivery workflow for each ended job's webhook deliveries (written by a trigger as the job ends).
const webhookDispatcher = await startWebhookDispatcher({ orm: deps.orm, temporal: deps.temporal, databaseUrl: config.databaseUrl, researchTaskQueue: config.temporal.taskQueue, logger });
// Beside the API's: accepted jobs get their workflow even while no API runs.
const relay = startWorkflowStartRelay({ ...deps, taskQueue: config.temporal.taskQueue, deadlineMs: config.researchDeadlineMs, logger });
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
await relay.stop();
await metricsServer?.close();
mailer.close();
await connection.close();
await deps.temporal.connection.close();
await deps.orm.close();
logger.info('worker stopped');
