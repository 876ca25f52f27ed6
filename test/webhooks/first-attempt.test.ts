// The dispatcher sends each delivery's first attempt itself, outside Temporal
// (the webhooks worker's process); a delivery workflow holds only the retries
// of one that failed, and takes over a claim whose dispatcher died.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.ts';
import { webhookDeliveryWorkflowId } from '../../domain/webhooks/contract.ts';
import { loadWebhookConfig } from '../../integrations/webhooks/config.ts';
import { createLogger } from '../../lib/logger.ts';
import { startWebhookDispatcher, type WebhookDispatcher } from '../../services/webhooks/dispatch.ts';
import { createEndpoint, enqueueTestEvent, listDeliveries } from '../../services/webhooks/webhooks.ts';
import { createWebhookWorker } from '../../worker/webhook-worker.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

interface Answer {
  status: number;
  retryAfter?: string;
}

/** A receiver on loopback answering each path from a queue of answers (the last one repeats). */
async function startReceiver() {
  const received: Array<{ path: string; id: string; at: number }> = [];
  const answers = new Map<string, Answer[]>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push({ path: req.url ?? '', id: String(req.headers['webhook-id']), at: Date.now() });
      const queue = answers.get(req.url ?? '') ?? [];
      const answer = (queue.length > 1 ? queue.shift() : queue[0]) ?? { status: 204 };
      if (answer.retryAfter) res.setHeader('retry-after', answer.retryAfter);
      res.statusCode = answer.status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    answer: (path: string, ...queue: Answer[]) => answers.set(path, queue),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('first attempts from the dispatcher', () => {
  let stack: TestStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let connection: NativeConnection;
  let worker: Worker;
  let workerDone: Promise<void>;
  const dispatchers: WebhookDispatcher[] = [];
  const webhooks = loadWebhookConfig({ ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  const em = () => stack.orm.em.fork();

  const startDispatcher = async () => {
    const dispatcher = await startWebhookDispatcher({
      orm: stack.orm,
      temporal: stack.temporal,
      databaseUrl: stack.config.databaseUrl,
      researchTaskQueue: stack.config.temporal.taskQueue,
      logger: createLogger('test', 'silent'),
      firstAttempts: { webhooks, clock: () => new Date() },
    });
    dispatchers.push(dispatcher);
    return dispatcher;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startTestStack({ withWorker: false });
    connection = await NativeConnection.connect({ address: stack.config.temporal.address });
    worker = await createWebhookWorker({
      connection,
      namespace: stack.config.temporal.namespace,
      researchTaskQueue: stack.config.temporal.taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      deps: { orm: stack.orm, webhooks, clock: () => new Date() },
    });
    workerDone = worker.run();
    // Two dispatchers, as two webhooks workers run them: each delivery is still sent once.
    await startDispatcher();
    await startDispatcher();
  }, 120_000);
  afterAll(async () => {
    for (const dispatcher of dispatchers) await dispatcher.stop();
    worker?.shutdown();
    await workerDone;
    await connection?.close();
    await stack?.stop();
    await receiver?.close();
  });

  async function endpointAt(path: string) {
    const accountId = await stack.createAccount('growth');
    const { endpoint } = await createEndpoint(em(), webhooks.secretKey, { accountId, url: `${receiver.url}${path}`, events: ['research.completed'] }, new Date());
    return { accountId, endpointId: endpoint.id };
  }

  const workflowOf = (deliveryId: string) => stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId, 0));

  it('delivers with no workflow at all when the first attempt succeeds, each event once across two dispatchers', async () => {
    const { accountId, endpointId } = await endpointAt('/ok');
    const ids = await Promise.all(Array.from({ length: 20 }, () => enqueueTestEvent(em(), accountId, endpointId, new Date())));
    const rows = await until(async () => {
      const all = await listDeliveries(em(), accountId, endpointId);
      return all.length === 20 && all.every((row) => row.status === 'delivered') && all;
    });
    expect(rows.every((row) => row.attempts === 1)).toBe(true);
    const sent = receiver.received.filter((each) => each.path === '/ok').map((each) => each.id);
    expect(sent.sort()).toEqual([...ids].sort());
    await expect(workflowOf(ids[0]!).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    const [marked]: { n: number }[] = await em().execute('select count(*)::int as n from webhook_delivery where endpoint_id = ? and workflow_started_at is not null', [endpointId]);
    expect(marked!.n).toBe(20);
  });

  it('hands a failed first attempt to a workflow that waits the Retry-After the endpoint asked for, then goes on', async () => {
    const { accountId, endpointId } = await endpointAt('/busy');
    receiver.answer('/busy', { status: 503, retryAfter: '25' });
    const id = (await enqueueTestEvent(em(), accountId, endpointId, new Date()))!;
    const handle = workflowOf(id);
    await until(async () => (await handle.describe().catch(() => null)) !== null);
    const history = await until(async () => {
      const events = (await handle.fetchHistory()).events ?? [];
      return events.some((event) => event.timerStartedEventAttributes) && events;
    });
    const timer = history.find((event) => event.timerStartedEventAttributes)!.timerStartedEventAttributes!;
    // 25 s, not the schedule's first 10 s.
    expect(Number(timer.startToFireTimeout?.seconds)).toBe(25);
    const [row] = await listDeliveries(em(), accountId, endpointId);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 503 });
    await handle.terminate('test over');
  });

  it('retries after the schedule’s first interval when no Retry-After came, and delivers on the second attempt', { timeout: 60_000 }, async () => {
    const { accountId, endpointId } = await endpointAt('/flaky');
    receiver.answer('/flaky', { status: 502 }, { status: 204 });
    const id = (await enqueueTestEvent(em(), accountId, endpointId, new Date()))!;
    const [row] = await until(async () => {
      const rows = await listDeliveries(em(), accountId, endpointId);
      return rows[0]?.status === 'delivered' && rows;
    }, 40_000);
    expect(row).toMatchObject({ attempts: 2, lastStatusCode: 204 });
    const times = receiver.received.filter((each) => each.path === '/flaky').map((each) => each.at);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(9_500);
    expect(await workflowOf(id).result()).toBe('delivered');
  });

  it('ends a delivery refused for good (a 4xx) without a workflow', async () => {
    const { accountId, endpointId } = await endpointAt('/refuse');
    receiver.answer('/refuse', { status: 400 });
    const id = (await enqueueTestEvent(em(), accountId, endpointId, new Date()))!;
    const [row] = await until(async () => {
      const rows = await listDeliveries(em(), accountId, endpointId);
      return rows[0]?.status === 'failed' && rows;
    });
    expect(row).toMatchObject({ attempts: 1, lastStatusCode: 400 });
    await expect(workflowOf(id).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('lets a workflow take over a claim whose dispatcher died before handing it on', async () => {
    const { accountId, endpointId } = await endpointAt('/orphan');
    // Claimed two minutes ago by a dispatcher that never came back.
    await Promise.all(dispatchers.map((dispatcher) => dispatcher.stop()));
    const id = (await enqueueTestEvent(em(), accountId, endpointId, new Date()))!;
    await em().execute(`update webhook_delivery set first_attempt_claimed_at = now() - interval '2 minutes' where id = ?`, [id]);
    await startDispatcher();
    const [row] = await until(async () => {
      const rows = await listDeliveries(em(), accountId, endpointId);
      return rows[0]?.status === 'delivered' && rows;
    });
    expect(row).toMatchObject({ attempts: 1 });
    expect(await workflowOf(id).result()).toBe('delivered');
  });
});
