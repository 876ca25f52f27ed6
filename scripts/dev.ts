// `npm run dev`: the whole system on embedded defaults. Ctrl-C stops everything
// it started; a second run reuses the data under .data/. Every port moves with
// its own variable (.env.example), so that two checkouts run side by side.
import { join } from 'node:path';
import { exitOnConfigError, loadDotEnv } from '../lib/env.ts';
import type { Config } from '../lib/config.ts';
import { checkAppConfiguration } from './lib/app-config.ts';
import { DEV_WORKER_METRICS_PORT, devEnvironment } from './lib/dev-env.ts';
import { waitFor } from './lib/child-process.ts';
import { devBanner } from './lib/dev-banner.ts';
import { startRoleProcesses, type RoleProcess } from './lib/role-processes.ts';
import { WORKER_ROLES } from '../worker/role-names.ts';
import { readDevDataDir, readDevPorts, type DevPorts } from './lib/dev-ports.ts';
import { ROOT, startLocalServices, type LocalServices } from './lib/local-services.ts';
import { isPortInUse, ownProcess, PortInUseError, recordOwnProcess, requireFreePort } from './lib/port-owner.ts';
import { ensureJaeger, startJaeger, type JaegerServer } from './lib/jaeger.ts';
import { freePort } from './lib/free-port.ts';

const log = (line: string) => process.stderr.write(`[dev] ${line}\n`);

let ports: DevPorts;
let config: Config;
let dataDir: string;
try {
  loadDotEnv();
  // Dev's defaults (the workers' probes on 9464 and up, …) under the environment and .env.
  const startEnv = devEnvironment(process.env);
  ports = readDevPorts(startEnv);
  dataDir = readDevDataDir(startEnv, ROOT);
  config = checkAppConfiguration(startEnv, `http://127.0.0.1:${ports.api}`);
} catch (error) {
  exitOnConfigError('dev', error);
}
const apiUrl = `http://127.0.0.1:${ports.api}`;
const workerPortBase = config.workerMetrics?.port ?? DEV_WORKER_METRICS_PORT;

// Children run in their own process groups: a Ctrl-C reaches only this
// process, which stops them in order (API, workers, sandboxes, Temporal, PostgreSQL).
let services: LocalServices | null = null;
let servicesStarting: Promise<LocalServices> | null = null;
let apps: { stop(): Promise<void> } | null = null;
let isStopping = false;
async function stopAll(code: number) {
  if (isStopping) return;
  isStopping = true;
  if (code === 0) log('Stopping…');
  await apps?.stop();
  // A Ctrl-C during start-up waits for the services being started, then stops them too.
  const started = services ?? (await servicesStarting?.catch(() => null)) ?? null;
  await started?.stop();
  if (code === 0) log('Everything stopped.');
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));

try {
  await stopLeftovers(['api', 'worker', ...WORKER_ROLES.map((role) => `${role}-worker`)]);
  await requireFreePort(ports.api, 'PORT', 'API');
  // One probe port per worker process, counting up from WORKER_METRICS_PORT.
  for (const [index, role] of WORKER_ROLES.entries()) await requireFreePort(workerPortBase + index, 'WORKER_METRICS_PORT', `the ${role} worker's probes`);
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

// DEV_JAEGER=1: a local trace store, and every process's traces sent to it (docs/operations.md#traces).
const jaeger = process.env.DEV_JAEGER === '1' ? await startDevJaeger() : null;
// What dev provides (the services' addresses, the stand-ins' settings) yields to the environment and .env.
const appEnv: NodeJS.ProcessEnv = devEnvironment(process.env, {
  ...services!.env,
  PORT: String(ports.api),
  ...(jaeger ? { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint, TRACE_UI_URL: `${jaeger.uiUrl}/trace/{trace_id}` } : {}),
});
// A process per role, as in production (docs/operations.md#processes); one that dies is started again.
const roles: RoleProcess[] = [
  { name: 'api', entry: 'api/main.ts', args: [], probeUrl: `${apiUrl}/readyz` },
  ...WORKER_ROLES.filter((role) => role !== 'crm' || appEnv.HUBSPOT_CLIENT_ID).map((role) => {
    const port = workerPortBase + WORKER_ROLES.indexOf(role);
    return { name: `${role}-worker`, entry: 'worker/main.ts', args: [role], env: { WORKER_METRICS_PORT: String(port) }, probeUrl: `http://127.0.0.1:${port}/readyz` };
  }),
];
apps = startRoleProcesses(roles, {
  env: appEnv,
  log,
  onStart: (role, pid) => recordOwnProcess(dataDir, role.name, pid, join(ROOT, role.entry)),
});
for (const role of roles) await waitFor(role.name, async () => (await fetch(role.probeUrl)).ok, 120_000);

log(
  devBanner({
    apiUrl,
    sandboxUrls: services!.sandboxUrls,
    temporalUiUrl: services!.temporalUiUrl,
    temporalAddress: services!.env.TEMPORAL_ADDRESS,
    databaseUrl: services!.env.DATABASE_URL,
    jaegerUrl: jaeger?.uiUrl ?? null,
    workers: roles.filter((role) => role.name !== 'api'),
    env: process.env,
  }),
);

/** Jaeger with its in-memory store on free ports (its UI on DEV_JAEGER_UI_PORT, default 16686 when free), stopped with the rest. */
async function startDevJaeger(): Promise<JaegerServer> {
  const binary = await ensureJaeger(log);
  const preferredUi = Number(process.env.DEV_JAEGER_UI_PORT ?? 16686);
  const ui = (await isPortInUse(preferredUi)) ? await freePort() : preferredUi;
  const jaegerPorts = { otlpHttp: await freePort(), otlpGrpc: await freePort(), ui, queryGrpc: await freePort(), health: await freePort() };
  const server = await startJaeger({ binary, ports: jaegerPorts, workDir: join(dataDir, 'jaeger'), logFile: join(dataDir, 'logs', 'jaeger.log') });
  const stopServices = services!.stop.bind(services);
  services!.stop = async () => {
    await server.process.stop();
    await stopServices();
  };
  return server;
}

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
