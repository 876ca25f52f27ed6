import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../scripts/lib/child-process.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { TAGGED, ensureTools, named, ofKind, renderChart, type Container, type Manifest } from './helm-render.ts';

// What a fresh `helm install` with the chart's defaults runs (docs/deploy.md#installing):
// the worker Deployments' processes, started here with the environment the
// chart renders for their pods, against this run's Temporal and PostgreSQL,
// take a job submitted to the API with no step after the install. Only what
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
let manifests: Manifest[];
const started: Started[] = [];

beforeAll(async () => {
  const tools = await ensureTools((line) => process.stderr.write(`[helm-install] ${line}\n`));
  [manifests, stack] = await Promise.all([renderChart(tools, TAGGED), startTestStack({ withWorker: false })]);
}, 40 * 60_000);

afterAll(async () => {
  for (const { child } of started) if (child.exitCode === null) child.kill('SIGKILL');
  await stack?.stop();
});

/** A container's environment as the kubelet builds it: the ConfigMap's data, then `env`, each secret from `secrets`. */
function podEnvironment(container: Container, secrets: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) Object.assign(env, named(manifests, 'ConfigMap', source.configMapRef!.name).data);
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

describe('a fresh helm install with the default values', () => {
  it('runs jobs with no manual step: its workers take a submitted job to completed', async () => {
    const workers = ofKind(manifests, 'Deployment').filter((deployment) => deployment.metadata.labels?.['app.kubernetes.io/component'] !== 'api');
    expect(workers.map((deployment) => deployment.metadata.name)).toEqual([`${FULLNAME}-research`, `${FULLNAME}-webhooks`, `${FULLNAME}-housekeeping`]);
    const secrets = {
      DATABASE_URL: stack.config.databaseUrl,
      AUTH_SECRET: randomBytes(36).toString('base64'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    };
    for (const deployment of workers) {
      const container = deployment.spec!.template!.spec.containers[0]!;
      const role = deployment.metadata.labels!['app.kubernetes.io/component']!;
      const port = await freePort();
      const env = {
        ...podEnvironment(container, secrets),
        TEMPORAL_ADDRESS: stack.config.temporal.address,
        TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
        WORKER_METRICS_HOST: '127.0.0.1',
        WORKER_METRICS_PORT: String(port),
        PROVIDER_SANDBOX_URL: stack.providerWorld.url,
        AI_SANDBOX_URL: stack.model.url,
        WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
      };
      // The image's entrypoint runs the container's args: node and its arguments.
      const [node, ...args] = container.args;
      expect(node).toBe('node');
      const child = spawn(process.execPath, args, { cwd: ROOT, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      started.push({ role, child, url: `http://127.0.0.1:${port}`, output: () => output });
    }
    for (const each of started) {
      await waitFor(`the ${each.role} worker`, async () => (await fetch(`${each.url}/readyz`).catch(() => null))?.ok ?? false, 90_000).catch((error: Error) => {
        throw new Error(`${error.message}; its output:\n${each.output()}`);
      });
    }

    const customer = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' });
    const accepted = await stack.api.research(customer.key, { email: person.email });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const ended = await stack.api.waitForEnd(customer.key, accepted.body.research_id, 60_000);
    expect(ended.body, started.map((each) => `${each.role}:\n${each.output()}`).join('\n')).toMatchObject({ status: 'completed', data: { prospect: { email: person.email } } });

    await Promise.all(started.map(async ({ child }) => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }));
    expect(started.map(({ child }) => child.exitCode)).toEqual([0, 0, 0]);
  }, 180_000);
});
