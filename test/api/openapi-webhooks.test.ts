import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failJob } from '../../services/research/jobs.ts';
import { createEndpoint, enqueueTestEvent } from '../../services/webhooks/webhooks.ts';
import { schemaMismatches } from '../helpers/json-schema.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startTestWebhooks, WEBHOOK_TEST_ENV, type TestWebhooks } from '../helpers/webhook-delivery.ts';

// /openapi.json says exactly what each webhook event carries, and real deliveries carry exactly that.
type Schema = Record<string, unknown>;
let stack: TestStack;
let webhooks: TestWebhooks;
let document: Schema & { webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: Schema } } } } }> };

beforeAll(async () => {
  stack = await startTestStack({ apiEnv: WEBHOOK_TEST_ENV, withWorker: false });
  webhooks = await startTestWebhooks(stack);
  document = (await stack.api.get('/openapi.json')).body;
}, 120_000);

afterAll(async () => {
  await webhooks?.stop();
  await stack?.stop();
});

const bodySchema = (type: string) => document.webhooks[type].post.requestBody.content['application/json'].schema;
const component = (name: string) => (document.components as { schemas: Record<string, Schema> }).schemas[name];

describe('the webhooks of /openapi.json', () => {
  it('name one body per event type, whose data is that event\'s own shape, not the whole status union', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual(['research.completed', 'research.failed', 'webhook.test']);
    const expected = { 'research.completed': ['ResearchCompletedEvent', 'CompletedReply'], 'research.failed': ['ResearchFailedEvent', 'FailedReply'] } as const;
    for (const [type, [event, data]] of Object.entries(expected)) {
      expect(bodySchema(type)).toEqual({ $ref: `#/components/schemas/${event}` });
      expect(component(event)).toMatchObject({
        required: ['type', 'timestamp', 'data'],
        additionalProperties: false,
        properties: { type: { const: type }, data: { $ref: `#/components/schemas/${data}` } },
      });
    }
    expect(component('CompletedReply')).toMatchObject({ properties: { status: { const: 'completed' } }, required: ['research_id', 'status', 'completed_at', 'data'] });
    expect(component('FailedReply')).toMatchObject({ properties: { status: { const: 'failed' }, error: { enum: ['internal_error', 'timeout'] } } });
    expect(component('WebhookTestEvent')).toMatchObject({ properties: { type: { const: 'webhook.test' }, data: { required: ['message'] } } });
  });

  it('match what a completed job, a failed job and "Send test event" deliver, and only their own', async () => {
    const customer = await stack.createCustomer('growth');
    const hook = '/hooks/openapi-contract';
    const { endpoint } = await createEndpoint(
      stack.orm.em.fork(),
      webhooks.config.secretKey,
      { accountId: customer.accountId, url: `${webhooks.receiver.url}${hook}`, events: ['research.completed', 'research.failed'] },
      new Date(),
    );
    // No worker yet: the first job stays queued and is ended `failed` by the backstop's path.
    const failed = await stack.api.research(customer.key, { email: samplePerson(stack, {}, 1).email });
    expect(await failJob(stack.orm.em.fork(), failed.body.research_id, 'timeout', new Date())).toBe(true);
    await stack.startWorker();
    const completed = await stack.api.research(customer.key, { email: samplePerson(stack, {}, 2).email });
    expect((await stack.api.waitForEnd(customer.key, completed.body.research_id)).body.status).toBe('completed');
    await enqueueTestEvent(stack.orm.em.fork(), customer.accountId, endpoint.id, new Date());

    await expect.poll(() => webhooks.receiver.received(hook).length, { timeout: 30_000, interval: 100 }).toBe(3);
    const bodies = webhooks.receiver.received(hook).map((each) => JSON.parse(each.body) as { type: string; data: { research_id?: string } });
    expect(bodies.map((body) => body.type).sort()).toEqual(['research.completed', 'research.failed', 'webhook.test']);
    for (const body of bodies) {
      expect(schemaMismatches(document, bodySchema(body.type), body), body.type).toEqual([]);
      for (const other of Object.keys(document.webhooks).filter((type) => type !== body.type)) {
        expect(schemaMismatches(document, bodySchema(other), body), `${body.type} read as ${other}`).not.toEqual([]);
      }
    }
    // The old document's `data` (any status reply) would also have let a delivered event read as queued; the event's own data does not.
    const completedBody = bodies.find((body) => body.type === 'research.completed')!;
    expect(completedBody.data.research_id).toBe(completed.body.research_id);
    expect(schemaMismatches(document, component('ResearchCompletedEvent'), { ...completedBody, data: { research_id: 'res_x', status: 'queued', estimated_seconds: 3 } })).not.toEqual([]);
    expect(bodies.find((body) => body.type === 'research.failed')!.data).toEqual({ research_id: failed.body.research_id, status: 'failed', error: 'timeout' });
  }, 120_000);
});
