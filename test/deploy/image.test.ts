import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../db/migrations/index.ts';
import { waitFor } from '../../scripts/lib/child-process.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { buildImage, canBuildImages } from '../../scripts/lib/image.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { startModelSandbox, type ModelSandbox } from '../../sandbox/model/model-sandbox.ts';
import { startProviderWorld, type ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { WORKER_ROLES } from '../../worker/role-names.ts';
import { createApiCaller } from '../helpers/api-caller.ts';
import { imageContainer, type ImageContainer, type ImageProcess } from '../helpers/image-container.ts';
import { adminQuery } from '../helpers/test-stack.ts';

// The image as an operator runs it (docs/deploy.md#the-image): built from the
// Dockerfile with buildah, then the migrations, the admin commands, the API and
// every worker role started from it against this run's PostgreSQL, Temporal and
// stand-ins. Building needs root (CI runs as root); the first build on a
// machine takes minutes, a later one only redoes the steps after a change.
const BUILD_TIMEOUT_MS = 20 * 60_000;
const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

describe.skipIf(!canBuildImages)('the image', () => {
  let image: string;
  const containers: ImageContainer[] = [];
  const processes: ImageProcess[] = [];
  let providerWorld: ProviderWorldHandle;
  let model: ModelSandbox;
  let adminUrl: string;
  let database: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    const log = (line: string) => process.stderr.write(`[image] ${line}\n`);
    image = await buildImage({ tag: 'test', log, outputFile: join(process.env.TEST_WORK_DIR!, 'image-build.log') });
    adminUrl = process.env.TEST_POSTGRES_ADMIN_URL!;
    const suffix = randomBytes(4).toString('hex');
    database = `image_${suffix}`;
    await adminQuery(adminUrl, `create database ${database}`);
    [providerWorld, model] = await Promise.all([startProviderWorld({ port: 0 }), startModelSandbox({ port: 0 })]);
    // What production must set (NODE_ENV=production comes from the image); the outside systems are the stand-ins.
    env = {
      DATABASE_URL: adminUrl.replace(/\/[^/]+$/, `/${database}`),
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!,
      TEMPORAL_TASK_QUEUE: `image-${suffix}`,
      PROVIDER_SANDBOX_URL: providerWorld.url,
      AI_SANDBOX_URL: model.url,
      AUTH_SECRET: randomBytes(36).toString('base64'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
      METRICS_BEARER_TOKEN: randomBytes(24).toString('hex'),
      CRM_TOKEN_KEY: randomBytes(32).toString('base64'),
      HUBSPOT_CLIENT_ID: 'image-test',
      HUBSPOT_CLIENT_SECRET: randomBytes(16).toString('hex'),
      LOG_LEVEL: 'info',
    };
  }, BUILD_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(processes.map((each) => each.kill()));
    for (const container of containers) container.remove();
    await Promise.all([providerWorld?.close(), model?.close()]);
    if (database) await adminQuery(adminUrl, `drop database if exists ${database} with (force)`);
  });

  function container(): ImageContainer {
    const made = imageContainer(image);
    containers.push(made);
    return made;
  }

  it('runs Node on Debian (glibc) as the non-root user node, behind tini, with the API as its default command', async () => {
    const made = container();
    expect(made.config.User).toBe('node');
    expect(made.config.Entrypoint).toEqual(['/usr/bin/tini', '--']);
    expect(made.config.Cmd).toEqual(['node', 'api/main.ts']);
    const facts = await made.run(['node', '-p', 'JSON.stringify({ uid: process.getuid(), node: process.versions.node, glibc: process.report.getReport().header.glibcVersionRuntime })'], {});
    expect(facts.code, facts.output).toBe(0);
    expect(JSON.parse(facts.output)).toMatchObject({ uid: 1000, node: expect.stringMatching(/^24\./), glibc: expect.stringMatching(/^2\.\d+$/) });
    // Its code belongs to root: the process cannot change it.
    const write = await made.run(['sh', '-c', 'touch api/main.ts'], {});
    expect(write.code).not.toBe(0);
    expect(write.output).toContain('Permission denied');
  });

  it('holds the production dependencies only, the built dashboard and workflow bundle, and not the build secret', () => {
    const made = container();
    const root = execFileSync('buildah', ['mount', made.name], { encoding: 'utf8' }).trim();
    try {
      const has = (path: string) => statSync(join(root, 'app', path), { throwIfNoEntry: false }) !== undefined;
      // npm's lock file marks what only the devDependencies need (dev), and what the
      // devDependencies and an optional peer of a production package both name (devOptional).
      const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean }> };
      const installed = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/'));
      const production = installed.filter(([, entry]) => !entry.dev && !entry.devOptional && !entry.optional).map(([path]) => path);
      const development = installed.filter(([, entry]) => entry.dev || entry.devOptional).map(([path]) => path);
      expect(production.length).toBeGreaterThan(100);
      expect(production.filter((path) => !has(`${path}/package.json`))).toEqual([]);
      expect(development).toEqual(expect.arrayContaining(['node_modules/typescript', 'node_modules/vite', 'node_modules/vitest']));
      expect(development.filter((path) => has(path))).toEqual([]);
      expect(has('dashboard/dist/index.html')).toBe(true);
      expect(has('dist/workflow-bundle.js')).toBe(true);
      expect(has('.env')).toBe(false);
      // The CA bundle was mounted into two build steps as a secret: no copy of it is in the image.
      const secret = readFileSync(CA_BUNDLE);
      const digest = createHash('sha256').update(secret).digest('hex');
      const copies = filesOfSize(root, secret.length).filter((path) => createHash('sha256').update(readFileSync(path)).digest('hex') === digest);
      expect(copies).toEqual([]);
      expect(statSync(join(root, 'run/secrets'), { throwIfNoEntry: false })).toBeUndefined();
    } finally {
      execFileSync('buildah', ['umount', made.name], { stdio: 'ignore' });
    }
  });

  let key: string;

  it('migrates the database (again without harm), and its admin commands make an account and a key', async () => {
    const made = container();
    for (let round = 0; round < 2; round += 1) {
      const migrated = await made.run(['node', 'scripts/migrate.ts'], env);
      expect(migrated.code, migrated.output).toBe(0);
      expect(migrated.output).toContain(`migrations applied: ${MIGRATIONS.length}\n`);
    }
    const account = await made.run(['node', 'scripts/admin.ts', 'account', 'create', '--email', 'owner@image.example.com', '--plan', 'growth'], env);
    expect(account.code, account.output).toBe(0);
    const { account_id: accountId } = JSON.parse(account.output) as { account_id: number };
    const created = await made.run(['node', 'scripts/admin.ts', 'key', 'create', '--account', String(accountId), '--product-name', 'PipelineIQ', '--product-description', 'Revenue forecasting for B2B sales teams'], env);
    expect(created.code, created.output).toBe(0);
    key = (JSON.parse(created.output) as { key: string }).key;
    expect(key).toMatch(/\S{20,}/);
  });

  const running: { name: string; process: ImageProcess; url: string }[] = [];

  it('runs the API and every worker role; a job submitted to its API completes', async () => {
    const apiPort = await freePort();
    const api = container().start(null, { ...env, PORT: String(apiPort) });
    processes.push(api);
    running.push({ name: 'api', process: api, url: `http://127.0.0.1:${apiPort}` });
    for (const role of WORKER_ROLES) {
      const port = await freePort();
      const worker = container().start(['node', 'worker/main.ts', role], { ...env, WORKER_METRICS_PORT: String(port) });
      processes.push(worker);
      running.push({ name: role, process: worker, url: `http://127.0.0.1:${port}` });
    }
    for (const each of running) {
      await waitFor(`${each.name} from the image`, async () => (await fetch(`${each.url}/readyz`)).ok, 90_000).catch((error: Error) => {
        throw new Error(`${error.message}; its output:\n${each.process.output()}`);
      });
    }
    for (const each of running.filter(({ name }) => name !== 'api')) {
      expect(await (await fetch(`${each.url}/readyz`)).json()).toMatchObject({ status: 'ok', roles: [each.name] });
    }

    const caller = createApiCaller(running[0]!.url);
    const [person] = providerWorld.world.samplePeople({ knownTo: 'both', companyKnownTo: 'both' }, 1);
    const accepted = await caller.research(key, { email: person!.email });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const ended = await caller.waitForEnd(key, accepted.body.research_id, 60_000);
    expect(ended.body).toMatchObject({ status: 'completed', data: { prospect: { email: person!.email, name: person!.fullName } } });
    expect(ended.body.data.company?.name).toBeTruthy();
    expect(ended.body._meta?.prospect).toMatchObject({ source: 'sandbox' });
    // The insights came from the model stand-in, through the worker in the image.
    expect(model.calls()).toBeGreaterThan(0);
    // The dashboard built into the image is what the API serves.
    const page = await fetch(`${running[0]!.url}/app/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });

  it('hands SIGTERM to Node: every process drains and exits 0', async () => {
    expect(running.map(({ name }) => name)).toEqual(['api', ...WORKER_ROLES]);
    await Promise.all(running.map(({ process }) => process.signal('SIGTERM')));
    for (const each of running) {
      expect(await each.process.exited, `${each.name}:\n${each.process.output()}`).toBe(0);
      if (each.name !== 'api') expect(each.process.output()).toContain('worker stopped');
    }
  });
});

function filesOfSize(dir: string, size: number): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (statSync(path).size === size) found.push(path);
  }
  return found;
}
