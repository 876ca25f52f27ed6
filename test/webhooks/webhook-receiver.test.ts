import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, enqueueTestEvent, listDeliveries } from '../../services/webhooks.ts';
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
});
