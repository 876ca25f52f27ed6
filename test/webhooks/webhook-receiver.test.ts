import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveryWorkflowId } from '../../domain/webhooks/contract.ts';
import { createEndpoint, enqueueTestEvent, listDeliveries } from '../../services/webhooks/webhooks.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startTestWebhooks, WEBHOOK_TEST_ENV, type TestWebhooks } from '../helpers/webhook-delivery.ts';

// The sandbox receiver (sandbox/webhook-receiver): verifies our deliveries with the library, shows them, refuses forgeries.
let stack: TestStack;
let webhooks: TestWebhooks;

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false, apiEnv: WEBHOOK_TEST_ENV });
  webhooks = await startTestWebhooks(stack);
}, 120_000);

afterAll(async () => {
  await webhooks?.stop();
  await stack?.stop();
});

describe('the webhook receiver stand-in', () => {
  it('verifies a delivery with a registered secret, shows it, and answers 400 to a bad signature', async () => {
    const accountId = await stack.createAccount('growth');
    const { endpoint, secret } = await createEndpoint(stack.orm.em.fork(), webhooks.config.secretKey, { accountId, url: `${webhooks.receiver.url}/hooks/dev`, events: ['research.completed'] }, new Date());
    const registered = await fetch(`${webhooks.receiver.url}/__admin/secrets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ secret }) });
    expect(registered.status).toBe(200);
    await enqueueTestEvent(stack.orm.em.fork(), accountId, endpoint.id, new Date());
    await expect.poll(async () => (await listDeliveries(stack.orm.em.fork(), accountId, endpoint.id))[0]?.status, { timeout: 20_000 }).toBe('delivered');

    // The dispatcher marked its start (a repeated start would be a no-op, but the mark keeps it from trying).
    const [marked]: { workflow_started_at: Date | null }[] = await stack.orm.em.fork().execute('select workflow_started_at from webhook_delivery where endpoint_id = ?', [endpoint.id]);
    expect(marked.workflow_started_at).not.toBeNull();
    const json = await (await fetch(`${webhooks.receiver.url}/__admin/received?hook=/hooks/dev`)).json();
    expect(json.received).toHaveLength(1);
    expect(json.received[0]).toMatchObject({ isVerified: true, answeredStatus: 204 });
    expect(JSON.parse(json.received[0].body)).toMatchObject({ type: 'webhook.test' });
    const page = await (await fetch(webhooks.receiver.url)).text();
    expect(page).toContain('webhook.test');
    expect(page).toContain('signature verified');

    // A forgery (signed with another secret) is refused, and shown as such.
    const forged = await fetch(`${webhooks.receiver.url}/hooks/dev`, {
      method: 'POST',
      headers: { 'webhook-id': 'msg_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
      body: '{"type":"research.completed"}',
    });
    expect(forged.status).toBe(400);
    expect(webhooks.receiver.received('/hooks/dev').at(-1)).toMatchObject({ isVerified: false });
  }, 60_000);

  /** Makes a hook of the stand-in answer otherwise (POST /__admin/answers). */
  async function answer(body: { hook: string; status: number; retryAfter?: string; times?: number }): Promise<void> {
    const reply = await fetch(`${webhooks.receiver.url}/__admin/answers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(reply.status).toBe(200);
  }

  async function endpointAt(hook: string): Promise<{ accountId: number; endpointId: number }> {
    const accountId = await stack.createAccount('growth');
    const { endpoint, secret } = await createEndpoint(stack.orm.em.fork(), webhooks.config.secretKey, { accountId, url: `${webhooks.receiver.url}${hook}`, events: ['research.completed'] }, new Date());
    webhooks.receiver.addSecret(secret);
    return { accountId, endpointId: endpoint.id };
  }

  it('waits as long as a 503 with Retry-After asks before the next attempt (the schedule alone would wait 10 s)', async () => {
    await answer({ hook: '/hooks/busy', status: 503, retryAfter: '20', times: 1 });
    const { accountId, endpointId } = await endpointAt('/hooks/busy');
    await enqueueTestEvent(stack.orm.em.fork(), accountId, endpointId, new Date());
    await expect.poll(async () => (await listDeliveries(stack.orm.em.fork(), accountId, endpointId))[0]?.status, { timeout: 60_000, interval: 500 }).toBe('delivered');
    const [first, second] = webhooks.receiver.received('/hooks/busy');
    expect([first?.answeredStatus, second?.answeredStatus]).toEqual([503, 204]);
    expect(second!.webhookId).toBe(first!.webhookId);
    expect(Date.parse(second!.at) - Date.parse(first!.at)).toBeGreaterThanOrEqual(20_000);
  }, 90_000);

  /** The delay Temporal scheduled after the first failed attempt of a delivery, read from its pending activity. */
  async function scheduledRetryDelayMs(accountId: number, endpointId: number): Promise<number> {
    await expect.poll(async () => (await listDeliveries(stack.orm.em.fork(), accountId, endpointId))[0]?.attempts, { timeout: 20_000 }).toBe(1);
    const [delivery] = await listDeliveries(stack.orm.em.fork(), accountId, endpointId);
    const handle = stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(delivery.id, 0));
    const toMs = (at: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(at?.seconds ?? 0) * 1000 + Math.round((at?.nanos ?? 0) / 1e6);
    let pending: Awaited<ReturnType<typeof handle.describe>>['raw']['pendingActivities'] = [];
    await expect.poll(async () => (pending = (await handle.describe()).raw.pendingActivities ?? [])[0]?.attempt, { timeout: 20_000 }).toBe(2);
    await handle.terminate('the test read what it needed');
    return toMs(pending[0].nextAttemptScheduleTime) - toMs(pending[0].lastAttemptCompleteTime);
  }

  it('reads Retry-After as an HTTP-date too, and never waits more than the schedule\'s hour', async () => {
    const dated = await endpointAt('/hooks/dated');
    await answer({ hook: '/hooks/dated', status: 503, retryAfter: new Date(Date.now() + 45_000).toUTCString() });
    await enqueueTestEvent(stack.orm.em.fork(), dated.accountId, dated.endpointId, new Date());
    const datedDelayMs = await scheduledRetryDelayMs(dated.accountId, dated.endpointId);
    // An HTTP-date has whole seconds, and a few pass between the answer and the failure.
    expect(datedDelayMs).toBeGreaterThan(38_000);
    expect(datedDelayMs).toBeLessThanOrEqual(45_000);

    const capped = await endpointAt('/hooks/tomorrow');
    await answer({ hook: '/hooks/tomorrow', status: 429, retryAfter: '86400' });
    await enqueueTestEvent(stack.orm.em.fork(), capped.accountId, capped.endpointId, new Date());
    expect(await scheduledRetryDelayMs(capped.accountId, capped.endpointId)).toBe(60 * 60_000);
  }, 90_000);
});
