// `npm run dev`: the whole system on embedded defaults. Ctrl-C stops everything
// it started; a second run reuses the data under .data/.
import { join } from 'node:path';
import { startProcess, waitFor, type ManagedProcess } from './lib/child-process.ts';
import { ROOT, startLocalServices } from './lib/local-services.ts';

const log = (line: string) => process.stderr.write(`[dev] ${line}\n`);
const port = Number(process.env.PORT ?? 3000);

const services = await startLocalServices({
  dataDir: join(ROOT, '.data'),
  ports: { postgres: 54329, temporal: 7233, temporalUi: 8233, providerWorld: 4010, modelSandbox: 4110 },
  env: process.env,
  stripe: { port: 4210, webhookUrl: `http://127.0.0.1:${port}/webhooks/stripe` },
  log,
});

const appEnv = { ...process.env, ...services.env, PORT: String(port) };
const node = (entry: string) => [ '--disable-warning=ExperimentalWarning', join(ROOT, entry)];
const apps: ManagedProcess[] = [
  startProcess('worker', process.execPath, node('worker/main.ts'), { env: appEnv }),
  startProcess('api', process.execPath, node('api/main.ts'), { env: appEnv }),
];

let isStopping = false;
async function stopAll(code: number) {
  if (isStopping) return;
  isStopping = true;
  log('Stopping…');
  for (const app of apps.reverse()) await app.stop();
  await services.stop();
  process.exit(code);
}
process.on('SIGINT', () => void stopAll(0));
process.on('SIGTERM', () => void stopAll(0));
for (const app of apps) {
  app.child.on('exit', (code) => {
    if (!isStopping) {
      log(`${app.name} exited with code ${code}; stopping the rest.`);
      void stopAll(1);
    }
  });
}

await waitFor('API', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000);
log(`Ready.
  API          http://127.0.0.1:${port}   (health: /healthz, OpenAPI: /openapi.json)
  Temporal UI  ${services.temporalUiUrl ?? `(external Temporal at ${services.env.TEMPORAL_ADDRESS})`}
  Database     ${services.env.DATABASE_URL.replace(/:[^:@/]+@/, ':***@')}
  Sandboxes    providers ${services.env.PROVIDER_SANDBOX_URL ?? '(real)'}, model ${services.env.AI_SANDBOX_URL ?? '(real)'}, Stripe ${services.env.STRIPE_API_BASE ?? '(real)'}
Create a key:  npm run --silent admin -- account create --email you@example.com --plan growth
               npm run --silent admin -- key create --account <account_id> --product-name "…" --product-description "…"
Press Ctrl-C to stop everything.`);
