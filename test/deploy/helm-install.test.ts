import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../scripts/lib/child-process.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { TAGGED, ensureTools, named, ofKind, renderChart, type Container, type Manifest, type Tools } from './helm-render.ts';

// What a fresh `helm install` with the chart's defaults runs (docs/deploy.md#installing):
// the worker Deployments' processes, started here with the environment the
// chart renders for their pods, against this run's Temporal and PostgreSQL,
// take a job submitted to the API with no step after the install; with Worker
// Versioning on, after the chart's post-install hook has run. Only what
// differs between a pod and this machine is replaced: where Temporal,
// PostgreSQL and the stand-ins are, the secrets' values, one port per process
// (each pod has its own network), and the workflow bundle the image carries.
const FULLNAME = 'enrich-prospect-enrichment';

interface Started {
  role: string;
  child: ChildProcess;
  url: string;
  output: () => string;
}

let stack: TestStack;
let tools: Tools;
let manifests: Manifest[];
const started: Started[] = [];

beforeAll(async () => {
  tools = await ensureTools((line) => process.stderr.write(`[helm-install] ${line}\n`));
  [manifests, stack] = await Promise.all([renderChart(tools, TAGGED), startTestStack({ withWorker: false })]);
}, 40 * 60_000);

afterAll(async () => {
  for (const { child } of started) if (child.exitCode === null) child.kill('SIGKILL');
  await stack?.stop();
});

/** A container's environment as the kubelet builds it: the ConfigMap's data, then `env`, each secret from `secrets`. */
function podEnvironment(rendered: Manifest[], container: Container, secrets: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) Object.assign(env, named(rendered, 'ConfigMap', source.configMapRef!.name).data);
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (variable.valueFrom?.secretKeyRef) {
      const value = secrets[variable.name];
      if (value === undefined) throw new Error(`the test has no value for the secret ${variable.name}`);
      env[variable.name] = value;
    } else throw new Error(`${variable.name}: a source the test does not know`);
  }
  return env;
}

const secrets = {
  AUTH_SECRET: randomBytes(36).toString('base64'),
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  METRICS_BEARER_TOKEN: randomBytes(24).toString('base64url'),
};

/** What differs between a pod and this machine: where Temporal, PostgreSQL and the stand-ins are, and the task queue of this test's stack. */
const placed = () => ({ TEMPORAL_ADDRESS: stack.config.temporal.address, TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue });

/** Runs a container's args (node and its arguments, as the image's entrypoint runs them) with `env` alone. */
function startContainer(container: Container, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const [node, ...args] = container.args;
  expect(node).toBe('node');
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Starts every worker Deployment's process of `rendered` and waits until each is ready. */
async function startWorkers(rendered: Manifest[]): Promise<Started[]> {
  const workers = ofKind(rendered, 'Deployment').filter((deployment) => deployment.metadata.labels?.['app.kubernetes.io/component'] !== 'api');
  const mine: Started[] = [];
  for (const deployment of workers) {
    const container = deployment.spec!.template!.spec.containers[0]!;
    const port = await freePort();
    const env = {
      ...podEnvironment(rendered, container, { ...secrets, DATABASE_URL: stack.config.databaseUrl }),
      ...placed(),
      // Each pod has its own network; here they share one.
      WORKER_METRICS_HOST: '127.0.0.1',
      WORKER_METRICS_PORT: String(port),
      PROVIDER_SANDBOX_URL: stack.providerWorld.url,
      AI_SANDBOX_URL: stack.model.url,
      // The image's own setting.
      WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
    };
    const each = { role: deployment.metadata.labels!['app.kubernetes.io/component']!, url: `http://127.0.0.1:${port}`, ...startContainer(container, env) };
    mine.push(each);
    started.push(each);
  }
  for (const each of mine) {
    await waitFor(`the ${each.role} worker`, async () => (await fetch(`${each.url}/readyz`).catch(() => null))?.ok ?? false, 90_000).catch((error: Error) => {
      throw new Error(`${error.message}; its output:\n${each.output()}`);
    });
  }
  return mine;
}

async function stopWorkers(workers: Started[]): Promise<void> {
  await Promise.all(workers.map(async ({ child }) => {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }));
  expect(workers.map(({ child }) => child.exitCode)).toEqual(workers.map(() => 0));
}

/** A job submitted to the API, and how it ended (60 s at most). */
async function researchOne(workers: Started[], index: number) {
  const customer = await stack.createCustomer('growth');
  const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, index);
  const accepted = await stack.api.research(customer.key, { email: person.email });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const ended = await stack.api.waitForEnd(customer.key, accepted.body.research_id, 60_000);
  expect(ended.body, workers.map((each) => `${each.role}:\n${each.output()}`).join('\n')).toMatchObject({ status: 'completed', data: { prospect: { email: person.email } } });
}

/** Runs a hook Job's container to its end, as Helm runs it after the install; returns its output. */
async function runHook(rendered: Manifest[], name: string): Promise<string> {
  const container = named(rendered, 'Job', name).spec!.template!.spec.containers[0]!;
  const { child, output } = startContainer(container, { ...podEnvironment(rendered, container, {}), ...placed() });
  const [code] = (await once(child, 'exit')) as [number];
  expect(code, output()).toBe(0);
  return output();
}

describe('a fresh helm install', () => {
  it('with the default values runs jobs with no manual step: its workers take a submitted job to completed', async () => {
    expect(ofKind(manifests, 'Deployment').map((deployment) => deployment.metadata.name)).toEqual([`${FULLNAME}-api`, `${FULLNAME}-research`, `${FULLNAME}-webhooks`, `${FULLNAME}-housekeeping`]);
    // No hook but the migrations, which the test stack has run.
    expect(ofKind(manifests, 'Job').map((job) => job.metadata.name)).toEqual([`${FULLNAME}-migrate`]);
    const workers = await startWorkers(manifests);
    await researchOne(workers, 0);
    await stopWorkers(workers);
  }, 180_000);

  it('with Worker Versioning on, its hook makes the first build current, so jobs run with no manual step; an upgrade leaves the current build alone', async () => {
    const deploymentName = `install-test-${randomBytes(4).toString('hex')}`;
    const versioned = (tag: string) => renderChart(tools, ['--set', `image.tag=${tag}`, '--set', 'workerVersioning.enabled=true', '--set', `workerVersioning.deploymentName=${deploymentName}`]);
    const first = await versioned('2026.11.0');
    // What helm install does after applying the objects: the post-install hook, here while the workers start.
    const hook = named(first, 'Job', `${FULLNAME}-first-build-current`);
    expect(hook.metadata.annotations).toMatchObject({ 'helm.sh/hook': 'post-install,post-upgrade' });
    const [workers] = await Promise.all([startWorkers(first), runHook(first, `${FULLNAME}-first-build-current`)]);
    expect(workers.map((each) => each.role)).toEqual(['research', 'webhooks', 'housekeeping']);
    await researchOne(workers, 1);
    const currentBuild = async () => (await stack.temporal.workflowService.describeWorkerDeployment({ namespace: 'default', deploymentName })).workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId;
    expect(await currentBuild()).toBe('2026.11.0');

    // The next release's hook: a build is current, so the new one waits for the operator (ramp, then set-current-version).
    const upgraded = await versioned('2026.11.1');
    expect(await runHook(upgraded, `${FULLNAME}-first-build-current`)).toContain('build 2026.11.0 is current; make 2026.11.1 current when it is ready');
    expect(await currentBuild()).toBe('2026.11.0');
    await stopWorkers(workers);
  }, 240_000);
});
