import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailTaskQueue } from '../../domain/mail/outbox-contract.ts';
import { webhookTaskQueue } from '../../domain/webhooks/contract.ts';
import { CONFIG_ERROR_EXIT_CODE } from '../../lib/env.ts';
import { waitFor } from '../../scripts/lib/child-process.ts';
import { sweepTaskQueue } from '../../worker/sweep-schedule.ts';
import { startAppProcess, type AppProcess } from '../helpers/app-process.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// The real processes (worker/main.ts, api/main.ts) beside the test stack: a
// role polls only its own task queues, and SIGTERM drains each process.
let stack: TestStack;
const children: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
});
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  await stack?.stop();
});

async function start(entry: 'worker/main.ts' | 'api/main.ts', args: string[], env: Record<string, string> = {}): Promise<AppProcess> {
  const started = await startAppProcess(stack, entry, args, env);
  children.push(started.child);
  return started;
}

async function ready(started: AppProcess, path = '/readyz'): Promise<void> {
  await waitFor(`${started.url}${path}`, async () => (await fetch(`${started.url}${path}`)).ok, 90_000).catch((error: Error) => {
    throw new Error(`${error.message}; its stderr: ${started.stderr()}`);
  });
}

/** The task queues this process polls for workflow tasks (its identity is the SDK's default, pid@host). */
async function queuesPolledBy(child: ChildProcess, queues: string[]): Promise<string[]> {
  const identity = `${child.pid}@${hostname()}`;
  const polled: string[] = [];
  for (const name of queues) {
    const reply = await stack.temporal.workflowService.describeTaskQueue({
      namespace: stack.config.temporal.namespace,
      taskQueue: { name, kind: 1 },
      taskQueueType: 1,
    });
    if (reply.pollers?.some((poller) => poller.identity === identity)) polled.push(name);
  }
  return polled;
}

describe('worker roles', () => {
  it('polls only the task queues of the roles it runs', async () => {
    const research = stack.config.temporal.taskQueue;
    const every = [research, webhookTaskQueue(research), sweepTaskQueue(research), mailTaskQueue(research)];
    const webhooks = await start('worker/main.ts', ['webhooks']);
    const housekeeping = await start('worker/main.ts', [], { WORKER_ROLES: 'housekeeping' });
    await Promise.all([ready(webhooks), ready(housekeeping)]);
    await waitFor('pollers', async () => (await queuesPolledBy(housekeeping.child, every)).length === 2, 30_000);
    expect(await queuesPolledBy(webhooks.child, every)).toEqual([webhookTaskQueue(research)]);
    expect(await queuesPolledBy(housekeeping.child, every)).toEqual([sweepTaskQueue(research), mailTaskQueue(research)]);
    expect(await (await fetch(`${webhooks.url}/readyz`)).json()).toMatchObject({ status: 'ok', roles: ['webhooks'], workers: { webhooks: 'RUNNING' } });
    for (const each of [webhooks, housekeeping]) {
      each.child.kill('SIGTERM');
      await once(each.child, 'exit');
    }
  });

  it('stops at start with one line for an unknown role, and for the crm role with no CRM app', async () => {
    for (const [args, expected] of [
      [['reserach'], /^worker: configuration: WORKER_ROLES: unknown role "reserach" \(one or more of research, crm, webhooks, housekeeping, or all\)\n$/],
      [['crm'], /^worker: configuration: WORKER_ROLES: the crm role needs a CRM app \(HUBSPOT_, PIPEDRIVE_ or SALESFORCE_CLIENT_ID with its _CLIENT_SECRET\)\n$/],
    ] as const) {
      const started = await start('worker/main.ts', [...args], { LOG_LEVEL: 'silent' });
      const [code] = await once(started.child, 'exit');
      expect(code).toBe(CONFIG_ERROR_EXIT_CODE);
      expect(started.stderr()).toMatch(expected);
    }
  });

  it('drains on SIGTERM: readiness turns false first, the job in flight completes, the process exits 0', async () => {
    const worker = await start('worker/main.ts', ['research'], { SHUTDOWN_READINESS_DELAY_MS: '1500' });
    await ready(worker);
    expect((await fetch(`${worker.url}/livez`)).status).toBe(200);
    const { key } = await stack.createCustomer('growth');
    const accepted = await stack.api.research(key, { email: samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }).email });
    const researchId: string = accepted.body.research_id;
    await waitFor('the job to start', async () => (await stack.api.status(key, researchId)).body.status !== 'queued', 30_000);
    worker.child.kill('SIGTERM');
    await waitFor('readiness to turn false', async () => (await fetch(`${worker.url}/readyz`)).status === 503, 1_000);
    expect(await (await fetch(`${worker.url}/readyz`)).json()).toMatchObject({ status: 'draining' });
    expect((await fetch(`${worker.url}/livez`)).status).toBe(200);
    const [code] = await once(worker.child, 'exit');
    expect(code).toBe(0);
    // What the drained worker did not finish, the next one does: nothing is lost.
    const next = await start('worker/main.ts', ['research']);
    expect((await stack.api.waitForEnd(key, researchId)).body.status).toBe('completed');
    next.child.kill('SIGTERM');
    await once(next.child, 'exit');
  });
});

describe('the API process', () => {
  it('drains on SIGTERM: readiness false, a long poll answered at once, new connections refused, exit 0', async () => {
    const api = await start('api/main.ts', [], { SHUTDOWN_READINESS_DELAY_MS: '1500' });
    await ready(api);
    expect(await (await fetch(`${api.url}/readyz`)).json()).toEqual({ status: 'ok', postgres: 'ok', temporal: 'ok' });
    // No worker runs: the job stays queued, and its long poll would wait 25 s.
    const { key } = await stack.createCustomer('growth');
    const accepted = await stack.api.research(key, { email: samplePerson(stack).email });
    const researchId: string = accepted.body.research_id;
    const asked = Date.now();
    const longPoll = fetch(`${api.url}/research-status/${researchId}?wait=25`, { headers: { authorization: `Bearer ${key}` } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    api.child.kill('SIGTERM');
    await waitFor('readiness to turn false', async () => (await fetch(`${api.url}/readyz`)).status === 503, 1_000);
    const reply = await longPoll;
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ research_id: researchId, status: 'queued' });
    expect(Date.now() - asked).toBeLessThan(10_000);
    const [code] = await once(api.child, 'exit');
    expect(code).toBe(0);
    // Nothing was left to wait for: it did not sit out its 20-second grace time.
    expect(Date.now() - asked).toBeLessThan(10_000);
    await expect(fetch(`${api.url}/livez`)).rejects.toThrow();
  });
});
