// A worker process: `node worker/main.ts [role,…]` (or WORKER_ROLES) runs one
// or more of the roles of worker/roles.ts on one Temporal connection, with its
// own probes and metrics (docs/operations.md#processes).
import { Runtime, NativeConnection, bundleWorkflowCode, type Worker, type WorkerOptions } from '@temporalio/worker';
import { createAiConfig, type AiConfig } from '../integrations/ai/index.ts';
import { createProviderConfig, type ProviderConfig } from '../integrations/providers/config.ts';
import { loadConfig, type Config } from '../lib/config.ts';
import { connectAtStart, connectionOptions } from '../lib/temporal-connection.ts';
import { ConfigError, exitOnConfigError, loadDotEnv } from '../lib/env.ts';
import { freePort } from '../lib/free-port.ts';
import { createLogger } from '../lib/logger.ts';
import { startTracing, stopTracing } from '../lib/tracing.ts';
import { metricsRegistry } from '../lib/metrics.ts';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from './create-worker.ts';
import { buildActivityDeps } from './dependencies.ts';
import { startWorkerMetricsServer } from './metrics-server.ts';
import { installTemporalLogging } from './telemetry.ts';
import { loadMailConfig, type MailConfig } from '../integrations/mail/config.ts';
import { loadWebhookConfig, type WebhookConfig } from '../integrations/webhooks/config.ts';
import { parseWorkerRoles, startRole, taskQueuesOf, type StartedRole, type WorkerRole } from './roles.ts';

// Every setting is read before anything connects: a bad value is one line on stderr.
let config: Config;
let roles: WorkerRole[];
let isEveryRole: boolean;
let outside: { providers: ProviderConfig; ai: AiConfig };
let mail: MailConfig;
let webhooks: WebhookConfig;
try {
  loadDotEnv();
  config = loadConfig();
  const named = process.argv[2] ?? config.workerRoles;
  roles = parseWorkerRoles(named);
  isEveryRole = named.trim() === 'all';
  outside = { providers: createProviderConfig(process.env), ai: createAiConfig(process.env) };
  mail = loadMailConfig();
  webhooks = loadWebhookConfig();
  // Each role its own service.name (prospect-worker-research, …); first, so that the logger below stamps traces.
  await startTracing(`worker-${roles.join('+')}`);
} catch (error) {
  exitOnConfigError('worker', error);
}

const logger = createLogger(`worker:${roles.join('+')}`, config.logLevel);
metricsRegistry.setDefaultLabels({ role: roles.join('+') });
// The runtime's exporter listens on loopback only; the worker's own port serves both.
const runtimeMetricsAddress = config.workerMetrics ? `127.0.0.1:${await freePort()}` : null;
installTemporalLogging(logger, 'WARN', runtimeMetricsAddress ? { prometheusAddress: runtimeMetricsAddress, globalTags: { role: roles.join('+') } } : {});

// SIGTERM drains: readiness turns false, then (after the readiness delay) every
// Worker stops polling and its tasks in flight get the grace time to finish.
// A signal while the process is still starting takes effect once started.
let isDraining = false;
const workers: Worker[] = [];
function stopPolling() {
  for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
}
function drain() {
  if (isDraining) return; // a second signal: the drain already runs
  isDraining = true;
  logger.info({ readinessDelayMs: config.shutdown.readinessDelayMs, graceMs: config.shutdown.graceMs }, 'draining: readiness is false; the Workers stop polling');
  setTimeout(stopPolling, config.shutdown.readinessDelayMs);
}
process.on('SIGINT', drain);
process.on('SIGTERM', drain);

const deps = await buildActivityDeps(config, logger, outside).catch((error: unknown) => exitOnConfigError('worker', error));
// The dashboard's address: usage alerts for credits taken by list and CRM runs link to its Billing page.
const publicUrl = (process.env.PUBLIC_URL ?? `http://localhost:${config.port}`).replace(/\/+$/, '');
const connection = await connectAtStart(config.temporal.connection, () =>
  NativeConnection.connect(connectionOptions(config.temporal.connection)),
).catch((error: unknown) => exitOnConfigError('worker', error));
// Bundled once for every Worker of the process.
const workflowBundle: NonNullable<WorkerOptions['workflowBundle']> = process.env.WORKFLOW_BUNDLE_PATH
  ? { codePath: process.env.WORKFLOW_BUNDLE_PATH }
  : { code: (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: Runtime.instance().logger })).code };
const started: StartedRole[] = [];
for (const role of [...roles]) {
  const one = await startRole(role, { config, connection, workflowBundle, deps, mail, webhooks, env: process.env, publicUrl, logger });
  if (one) {
    started.push(one);
    continue;
  }
  // Only the crm role has nothing to run, where no CRM app is configured.
  if (!isEveryRole) exitOnConfigError('worker', new ConfigError(['WORKER_ROLES: the crm role needs a CRM app (HUBSPOT_, PIPEDRIVE_ or SALESFORCE_CLIENT_ID with its _CLIENT_SECRET)']));
  roles = roles.filter((each) => each !== role);
  logger.info({ role }, 'no CRM app is configured: this process runs no crm role');
}
const byName = Object.assign({}, ...started.map((role) => role.workers)) as Record<string, Worker>;
workers.push(...Object.values(byName));
const running = Promise.all(workers.map((each) => each.run()));
const metricsServer = config.workerMetrics
  ? await startWorkerMetricsServer({
      ...config.workerMetrics,
      runtimeMetricsUrl: runtimeMetricsAddress && `http://${runtimeMetricsAddress}/metrics`,
      workers: byName,
      isDraining: () => isDraining,
      roles,
    })
  : null;
const taskQueues = roles.flatMap((role) => taskQueuesOf(role, config.temporal.taskQueue));
logger.info({ roles, taskQueues, temporal: config.temporal.address, probes: metricsServer && `${metricsServer.url}/readyz` }, 'worker running');
// A signal during start-up: its delay may have passed with no Worker yet to stop.
if (isDraining) setTimeout(stopPolling, config.shutdown.readinessDelayMs);

await running;
for (const role of started) await role.stopLoops();
await metricsServer?.close();
await connection.close();
await deps.temporal.connection.close();
await deps.orm.close();
await stopTracing();
logger.info({ roles }, 'worker stopped');
