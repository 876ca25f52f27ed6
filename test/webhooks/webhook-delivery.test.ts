import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/until.ts';
import { loadWebhookConfig } from '../../integrations/webhooks/config.ts';
import { NO_ANSWER_REASON, parseWebhookUrl, postWebhook, WebhookUrlRefused } from '../../integrations/webhooks/webhook-poster.ts';
import { failJob } from '../../services/research/jobs.ts';
import { startWebhookDispatcher, type WebhookDispatcher } from '../../services/webhooks/dispatch.ts';
import { createEndpoint, disableEndpoint, recordAttempt, enqueueTestEvent, listDeliveries, listEndpoints, resendDelivery, rotateSecret, updateEndpoint } from '../../services/webhooks/webhooks.ts';
import { createWebhookWorker } from '../../worker/webhook-worker.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Answer `HOLD` keeps the request open without an answer (until the receiver closes). */
const HOLD = 0;

/** A receiver on loopback whose answer per path the test sets (a status, or no answer at all). */
function startReceiver() {
  const received: Received[] = [];
  const answers = new Map<string, number[]>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers as Record<string, string>, body });
      const queue = answers.get(req.url ?? '') ?? [];
      const status = queue.length > 1 ? queue.shift()! : (queue[0] ?? 204);
      if (status === HOLD) return;
      if (status === 302) res.setHeader('location', 'https://example.com/elsewhere');
      res.statusCode = status;
      res.end();
    });
  });
  return new Promise<{ url: string; received: Received[]; answer(path: string, ...statuses: number[]): void; close(): Promise<void> }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        received,
        answer: (path, ...statuses) => answers.set(path, statuses),
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      }),
    ),
  );
}

describe('completion webhooks', () => {
  let stack: TestStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let worker: Worker;
  let workerDone: Promise<void>;
  let connection: NativeConnection;
  let dispatcher: WebhookDispatcher;
  // The development allow-list, as npm run dev and the tests set it: the receiver is on loopback.
  const webhooks = loadWebhookConfig({ ALLOW_PRIVATE_HOSTS: '127.0.0.1' });

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startTestStack({ apiEnv: { ALLOW_PRIVATE_HOSTS: '127.0.0.1' } });
    connection = await NativeConnection.connect({ address: stack.config.temporal.address });
    await startDeliveryWorker();
    dispatcher = await startWebhookDispatcher({
      orm: stack.orm,
      temporal: stack.temporal,
      databaseUrl: stack.config.databaseUrl,
      researchTaskQueue: stack.config.temporal.taskQueue,
      logger: (await import('../../lib/logger.ts')).createLogger('test', 'silent'),
    });
  }, 120_000);

  afterAll(async () => {
    await dispatcher?.stop();
    worker?.shutdown();
    await workerDone;
    await connection?.close();
    await stack?.stop();
    await receiver?.close();
  });

  async function startDeliveryWorker(): Promise<void> {
    worker = await createWebhookWorker({
      connection,
      namespace: stack.config.temporal.namespace,
      researchTaskQueue: stack.config.temporal.taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      deps: { orm: stack.orm, webhooks, clock: () => new Date() },
    });
    workerDone = worker.run();
  }

  const em = () => stack.orm.em.fork();
  const deliveriesOf = (accountId: number, endpointId: number) => listDeliveries(em(), accountId, endpointId);

  it('delivers an ended job once per matching endpoint, signed, with the status reply as data', async () => {
    const customer = await stack.createCustomer('growth');
    const { endpoint, secret } = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/done`, events: ['research.completed'] }, new Date());
    const failedOnly = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/failed-only`, events: ['research.failed'] }, new Date());

    const accepted = await stack.api.research(customer.key, { email: samplePerson(stack).email });
    expect(accepted.status).toBe(202);
    const researchId = accepted.body.research_id;
    const reply = await stack.api.waitForEnd(customer.key, researchId);
    expect(reply.body.status).toBe('completed');
    const statusText = await (await fetch(`${stack.apiUrl}/research-status/${researchId}`, { headers: { authorization: `Bearer ${customer.key}` } })).text();

    const [delivery] = await until(async () => {
      const rows = await deliveriesOf(customer.accountId, endpoint.id);
      return rows[0]?.status === 'delivered' && rows;
    });
    expect(delivery).toMatchObject({ eventType: 'research.completed', researchId, attempts: 1, lastStatusCode: 204 });
    const got = receiver.received.filter((each) => each.path === '/done');
    expect(got).toHaveLength(1);
    // The library verifies id, timestamp and signature over `id.timestamp.body`.
    const payload = new Webhook(secret).verify(got[0].body, got[0].headers) as { type: string; timestamp: string; data: unknown };
    expect(payload.type).toBe('research.completed');
    expect(got[0].headers['webhook-id']).toBe(delivery.id);
    // `data` is byte for byte the status reply.
    expect(got[0].body).toBe(`{"type":"research.completed","timestamp":"${payload.timestamp}","data":${statusText}}`);
    expect(() => new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(got[0].body, got[0].headers)).toThrow();
    expect(await deliveriesOf(customer.accountId, failedOnly.endpoint.id)).toEqual([]);
  }, 90_000);

  it('sends research.failed with the failed status reply', async () => {
    const customer = await stack.createCustomer('growth');
    const { endpoint, secret } = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/failed`, events: ['research.failed'] }, new Date());
    await stack.stopWorker();
    try {
      const accepted = await stack.api.research(customer.key, { email: samplePerson(stack, {}, 1).email });
      // Ended by the same path as the API's backstop.
      expect(await failJob(em(), accepted.body.research_id, 'timeout', new Date())).toBe(true);
      await until(async () => (await deliveriesOf(customer.accountId, endpoint.id))[0]?.status === 'delivered');
      const got = receiver.received.find((each) => each.path === '/failed')!;
      const payload = new Webhook(secret).verify(got.body, got.headers) as { type: string; data: unknown };
      expect(payload).toMatchObject({ type: 'research.failed', data: { research_id: accepted.body.research_id, status: 'failed', error: 'timeout' } });
    } finally {
      await stack.startWorker();
    }
  }, 90_000);

  it('retries a 5xx, then delivers; never retries another 4xx', async () => {
    const customer = await stack.createCustomer('growth');
    receiver.answer('/flaky', 503, 204);
    receiver.answer('/bad', 400);
    const flaky = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/flaky`, events: ['research.completed'] }, new Date());
    const bad = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/bad`, events: ['research.completed'] }, new Date());
    await enqueueTestEvent(em(), customer.accountId, flaky.endpoint.id, new Date());
    await enqueueTestEvent(em(), customer.accountId, bad.endpoint.id, new Date());

    const [refused] = await until(async () => {
      const rows = await deliveriesOf(customer.accountId, bad.endpoint.id);
      return rows[0]?.status === 'failed' && rows;
    });
    expect(refused).toMatchObject({ attempts: 1, lastStatusCode: 400 });
    const [delivered] = await until(async () => {
      const rows = await deliveriesOf(customer.accountId, flaky.endpoint.id);
      return rows[0]?.status === 'delivered' && rows;
    }, 40_000);
    expect(delivered).toMatchObject({ attempts: 2, lastStatusCode: 204 });
    const attempts: { status_code: number }[] = await em().execute('select status_code from webhook_attempt where delivery_id = ? order by id', [delivered.id]);
    expect(attempts.map((row) => row.status_code)).toEqual([503, 204]);

    // Resend: the same event id, delivered again by a new run.
    receiver.answer('/bad', 204);
    expect(await resendDelivery(em(), customer.accountId, refused.id)).toBe(true);
    await until(async () => (await deliveriesOf(customer.accountId, bad.endpoint.id))[0]?.status === 'delivered');
    const sent = receiver.received.filter((each) => each.path === '/bad');
    expect(sent.map((each) => each.headers['webhook-id'])).toEqual([refused.id, refused.id]);
  }, 90_000);

  it('disables an endpoint that answers 410 and mails its owner once', async () => {
    const customer = await stack.createCustomer('growth');
    receiver.answer('/gone', 410);
    const { endpoint } = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/gone`, events: ['research.completed'] }, new Date());
    await enqueueTestEvent(em(), customer.accountId, endpoint.id, new Date());
    await until(async () => (await deliveriesOf(customer.accountId, endpoint.id))[0]?.status === 'failed');
    const [view] = await listEndpoints(em(), customer.accountId, new Date());
    expect(view).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    expect(await disableEndpoint(em(), endpoint.id, 'gone', new Date())).toBe(false);
    const mails: { subject: string }[] = await em().execute('select subject from email_outbox where account_id = ?', [customer.accountId]);
    expect(mails.filter((mail) => mail.subject === 'A webhook endpoint was disabled')).toHaveLength(1);

    // A paused or disabled endpoint gets no delivery.
    await enqueueTestEvent(em(), customer.accountId, endpoint.id, new Date());
    await until(async () => (await deliveriesOf(customer.accountId, endpoint.id)).some((row) => row.status === 'skipped'));
    expect(receiver.received.filter((each) => each.path === '/gone')).toHaveLength(1);
    expect(await updateEndpoint(em(), customer.accountId, endpoint.id, { isPaused: false })).toBe(true);
    expect((await listEndpoints(em(), customer.accountId, new Date()))[0].status).toBe('active');
  }, 90_000);

  it('disables an endpoint that has failed every attempt for 3 days, and a success resets the streak', async () => {
    const customer = await stack.createCustomer('growth');
    const { endpoint } = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/streak`, events: ['research.completed'] }, new Date());
    // A delivery the dispatcher leaves alone (marked started): the attempts below are recorded by hand, days apart.
    await em().execute(
      `insert into webhook_delivery (id, endpoint_id, account_id, event_type, payload, status, created_at, workflow_started_at) values ('msg_streak', ?, ?, 'webhook.test', '{}', 'pending', now(), now())`,
      [endpoint.id, customer.accountId],
    );
    const day = 24 * 60 * 60_000;
    const t0 = Date.now();
    const failed = { statusCode: 503, error: null, durationMs: 5, isSuccess: false };
    expect(await recordAttempt(em(), 'msg_streak', endpoint.id, failed, new Date(t0))).toBe(false);
    expect(await recordAttempt(em(), 'msg_streak', endpoint.id, { ...failed, statusCode: 204, isSuccess: true }, new Date(t0 + day))).toBe(false);
    expect(await recordAttempt(em(), 'msg_streak', endpoint.id, failed, new Date(t0 + 2 * day))).toBe(false);
    expect(await recordAttempt(em(), 'msg_streak', endpoint.id, failed, new Date(t0 + 4 * day))).toBe(false);
    expect(await recordAttempt(em(), 'msg_streak', endpoint.id, failed, new Date(t0 + 5 * day))).toBe(true);
    expect((await listEndpoints(em(), customer.accountId, new Date()))[0]).toMatchObject({ status: 'disabled', disabledReason: 'failing' });
    const mails: { subject: string }[] = await em().execute('select subject from email_outbox where account_id = ?', [customer.accountId]);
    expect(mails).toHaveLength(1);
  });

  it('signs with the old and the new secret during a rotation', async () => {
    const customer = await stack.createCustomer('growth');
    const { endpoint, secret: oldSecret } = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/rotated`, events: ['research.completed'] }, new Date());
    const newSecret = (await rotateSecret(em(), webhooks.secretKey, customer.accountId, endpoint.id, new Date()))!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    await enqueueTestEvent(em(), customer.accountId, endpoint.id, new Date());
    await until(async () => (await deliveriesOf(customer.accountId, endpoint.id))[0]?.status === 'delivered');
    const got = receiver.received.find((each) => each.path === '/rotated')!;
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(oldSecret).verify(got.body, got.headers)).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(newSecret).verify(got.body, got.headers)).toMatchObject({ type: 'webhook.test' });
    // Never in a list reply.
    expect(JSON.stringify(await listEndpoints(em(), customer.accountId, new Date()))).not.toContain('whsec_');
  }, 60_000);

  it('signs the attempts after a rotation with both secrets, for a delivery already being retried', async () => {
    const customer = await stack.createCustomer('growth');
    receiver.answer('/rotating', 503, 204);
    const { endpoint, secret: oldSecret } = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/rotating`, events: ['research.completed'] }, new Date());
    await enqueueTestEvent(em(), customer.accountId, endpoint.id, new Date());
    await until(async () => (await deliveriesOf(customer.accountId, endpoint.id))[0]?.attempts === 1);

    const newSecret = (await rotateSecret(em(), webhooks.secretKey, customer.accountId, endpoint.id, new Date()))!;
    await until(async () => (await deliveriesOf(customer.accountId, endpoint.id))[0]?.status === 'delivered', 40_000);
    const [first, second] = receiver.received.filter((each) => each.path === '/rotating');
    expect(first!.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(new Webhook(oldSecret).verify(first!.body, first!.headers)).toMatchObject({ type: 'webhook.test' });
    // The same event (one id), now verifiable by a receiver that already switched and by one that has not yet.
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(new Webhook(newSecret).verify(second!.body, second!.headers)).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(oldSecret).verify(second!.body, second!.headers)).toMatchObject({ type: 'webhook.test' });
  }, 60_000);

  it('delivers at least once when the delivery worker stops in the middle of an attempt', async () => {
    const customer = await stack.createCustomer('growth');
    receiver.answer('/interrupted', HOLD, 204);
    const { endpoint } = await createEndpoint(em(), webhooks.secretKey, { accountId: customer.accountId, url: `${receiver.url}/interrupted`, events: ['research.completed'] }, new Date());
    await enqueueTestEvent(em(), customer.accountId, endpoint.id, new Date());
    await until(async () => receiver.received.some((each) => each.path === '/interrupted'));

    // The attempt is waiting on the endpoint when its worker goes; another worker takes the delivery over.
    worker.shutdown();
    await workerDone;
    await startDeliveryWorker();
    const [delivered] = await until(async () => {
      const rows = await deliveriesOf(customer.accountId, endpoint.id);
      return rows[0]?.status === 'delivered' && rows;
    }, 60_000);
    expect(delivered.lastStatusCode).toBe(204);
    const sent = receiver.received.filter((each) => each.path === '/interrupted');
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(new Set(sent.map((each) => each.headers['webhook-id']))).toEqual(new Set([delivered.id]));
  }, 90_000);

  it('refuses private addresses and plain http when the development allowance is off', async () => {
    const none = new Set<string>();
    expect(() => parseWebhookUrl(`${receiver.url}/x`, none)).toThrow(WebhookUrlRefused);
    const before = receiver.received.length;
    const port = new URL(receiver.url).port;
    for (const url of [`https://127.0.0.1:${port}/x`, `https://localhost:${port}/x`, 'https://[::1]/x', 'https://169.254.169.254/latest']) {
      const outcome = await postWebhook(url, {}, '{}', { allowedPrivateHosts: none });
      expect(outcome.kind, url).toBe('refused');
    }
    expect(receiver.received.length).toBe(before);
    expect(loadWebhookConfig({}).allowedPrivateHosts.size).toBe(0);
    // A redirect is not followed: it is a failed (retried) attempt.
    receiver.answer('/moved', 302);
    const moved = await postWebhook(`${receiver.url}/moved`, {}, '{}', { allowedPrivateHosts: new Set(['127.0.0.1']) });
    expect(moved).toMatchObject({ kind: 'answered', statusCode: 302 });

    // An endpoint that never answers: the attempt ends at its deadline (15 s in production), as no answer.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const hung = await postWebhook(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/x`, {}, '{}', { allowedPrivateHosts: new Set(['127.0.0.1']), timeoutMs: 300 });
      expect(hung).toMatchObject({ kind: 'network', reason: NO_ANSWER_REASON });
      expect(hung.durationMs).toBeGreaterThanOrEqual(290);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
