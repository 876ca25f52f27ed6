// `npm run dev`: the whole system on embedded defaults. Ctrl-C stops everything
// it started; a second run reuses the data under .data/. Every port moves with
// its own variable (.env.example), so that two checkouts run side by side.
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { exitOnConfigError, loadDotEnv } from '../lib/env.ts';
import type { Config } from '../lib/config.ts';
import { checkAppConfiguration } from './lib/app-config.ts';
import { startProcess, waitFor, type ManagedProcess } from './lib/child-process.ts';
import { readDevDataDir, readDevPorts, type DevPorts } from './lib/dev-ports.ts';
import { ROOT, startLocalServices, type LocalServices } from './lib/local-services.ts';
import { ownProcess, PortInUseError, recordOwnProcess, requireFreePort } from './lib/port-owner.ts';

const log = (line: string) => process.stderr.write(`[dev] ${line}\n`);
const DEV_WORKER_METRICS_PORT = 9464;

let ports: DevPorts;
let config: Config;
let dataDir: string;
try {
  loadDotEnv();
  // The worker serves /metrics only where a port is set; here, by default.
  if (!process.env.WORKER_METRICS_PORT?.trim()) process.env.WORKER_METRICS_PORT = String(DEV_WORKER_METRICS_PORT);
  ports = readDevPorts(process.env);
  dataDir = readDevDataDir(process.env, ROOT);
  config = checkAppConfiguration(process.env, `http://127.0.0.1:${ports.api}`);
} catch (error) {
  exitOnConfigError('dev', error);
}
const apiUrl = `http://127.0.0.1:${ports.api}`;

// Children run in their own process groups: a Ctrl-C reaches only this
// process, which stops them in order (API, worker, sandboxes, Temporal, PostgreSQL).
let services: LocalServices | null = null;
let servicesStarting: Promise<LocalServices> | null = null;
const apps: ManagedProcess[] = [];
let isStopping = false;
async function stopAll(code: number) {
  if (isStopping) return;
  isStopping = true;
  if (code === 0) log('Stopping…');
  for (const app of apps.reverse()) await app.stop(15_000);
  // A Ctrl-C during start-up waits for the services being started, then stops them too.
  const started = services ?? (await servicesStarting?.catch(() => null)) ?? null;
  await started?.stop();
  if (code === 0) log('Everything stopped.');
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  await stopLeftovers(['api', 'worker']);
  await requireFreePort(ports.api, 'PORT', 'API');
  if (config.workerMetrics) await requireFreePort(config.workerMetrics.port, 'WORKER_METRICS_PORT', 'worker metrics');
  servicesStarting = startLocalServices({
    dataDir,
    ports: { postgres: ports.postgres, temporal: ports.temporal, temporalUi: ports.temporalUi, ...ports.sandboxes },
    env: process.env,
    apiUrl,
    variableOf: ports.variableOf,
    isolateChildren: true,
    log,
  });
  services = await servicesStarting;
} catch (error) {
  if (!(error instanceof PortInUseError)) throw error;
  log(error.message);
  await stopAll(1);
}
if (isStopping) await new Promise(() => {}); // Ctrl-C during start-up: stopAll exits.

// The dashboard with hot reload, from dashboard/src, unless DASHBOARD_MODE says otherwise (`dist` after `npm run build`).
const appEnv = { DASHBOARD_MODE: 'dev', ...process.env, ...services!.env, PORT: String(ports.api) };
const node = (entry: string) => ['--disable-warning=ExperimentalWarning', join(ROOT, entry)];
const worker = startProcess('worker', process.execPath, node('worker/main.ts'), { env: appEnv, detached: true });
apps.push(worker, startProcess('api', process.execPath, node('api/main.ts'), { env: appEnv, detached: true }));
for (const app of apps) recordOwnProcess(dataDir, app.name, app.child.pid!, join(ROOT, app.name, 'main.ts'));
for (const app of apps) {
  app.child.on('exit', (code) => {
    if (!isStopping) {
      log(`${app.name} exited with code ${code}; stopping the rest.`);
      void stopAll(1);
    }
  });
}

// Ready means usable: the API answers /healthz and this worker polls the research queue.
await waitFor('API', async () => (await fetch(`${apiUrl}/healthz`)).ok, 90_000);
await waitFor('worker', () => isPolling(services!.env.TEMPORAL_ADDRESS, config, `${worker.child.pid}@${hostname()}`), 120_000);
if (config.workerMetrics) await waitFor('worker /healthz', async () => (await fetch(`http://${config.workerMetrics!.host}:${config.workerMetrics!.port}/healthz`)).ok, 30_000);

const sandboxes = Object.entries(services!.sandboxUrls).map(([name, url]) => `${name} ${url}`).join(', ') || '(none: real services configured)';
log(`Ready.
  API          ${apiUrl}   (health: /healthz, metrics: /metrics, OpenAPI: /openapi.json)
  Dashboard    ${apiUrl}/app   (sign up there; the e-mails land in the mail inbox below)
  Mail inbox   ${services!.sandboxUrls['mail-sandbox'] ?? `(real SMTP server ${process.env.SMTP_HOST})`}
  HubSpot      ${services!.sandboxUrls['hubspot-sandbox'] ?? `(HubSpot at ${process.env.HUBSPOT_API_BASE ?? 'https://api.hubapi.com'})`}   (the stand-in's contacts; connect it from a product's CRM page)
  Chat hooks   ${services!.sandboxUrls['chat-sandbox'] ? `${services!.sandboxUrls['chat-sandbox']}   (webhook URL: ${services!.sandboxUrls['chat-sandbox']}/services/T0/B0/any)` : '(none)'}
  Webhooks     ${services!.sandboxUrls['webhook-receiver'] ? `${services!.sandboxUrls['webhook-receiver']}   (endpoint URL for the Webhooks page: ${services!.sandboxUrls['webhook-receiver']}/hooks/dev)` : '(none)'}
  Worker       ${config.workerMetrics ? `http://${config.workerMetrics.host}:${config.workerMetrics.port}/metrics` : '(metrics off)'}
  Temporal UI  ${services!.temporalUiUrl ?? `(external Temporal at ${services!.env.TEMPORAL_ADDRESS})`}
  Database     ${services!.env.DATABASE_URL.replace(/:[^:@/]+@/, ':***@')}
  Sandboxes    ${sandboxes}
Create a key:  npm run --silent admin -- account create --email you@example.com --plan growth
               npm run --silent admin -- key create --account <account_id> --product-name "…" --product-description "…"
Press Ctrl-C to stop everything.`);

/** An API or worker of this checkout left running by a run that was killed (kill -9): stopped before starting anew. */
async function stopLeftovers(names: string[]): Promise<void> {
  for (const name of names) {
    const pid = ownProcess(dataDir, name);
    if (pid === null) continue;
    log(`Stopping the ${name} a killed run left behind (pid ${pid})…`);
    process.kill(pid, 'SIGTERM');
    await waitFor(`the old ${name} to stop`, async () => ownProcess(dataDir, name) === null, 30_000);
  }
}

/** True once a poller with this identity (the worker's default, pid@host) asks the research queue for workflow and activity tasks. */
async function isPolling(address: string, appConfig: Config, identity: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    // temporal.api.enums.v1: TASK_QUEUE_TYPE_WORKFLOW = 1, TASK_QUEUE_TYPE_ACTIVITY = 2.
    for (const taskQueueType of [1, 2]) {
      const reply = await connection.workflowService.describeTaskQueue({
        namespace: appConfig.temporal.namespace,
        taskQueue: { name: appConfig.temporal.taskQueue, kind: 1 },
        taskQueueType,
      });
      if (!reply.pollers?.some((poller) => poller.identity === identity)) return false;
    }
    return true;
  } finally {
    await connection.close();
  }
}
