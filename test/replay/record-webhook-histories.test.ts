// Records the sample histories of webhookDeliveryWorkflow in
// test/histories/webhooks/ that replay-webhook-histories.test.ts replays
// against the current workflow code. Skipped unless asked for:
//
//   RECORD_HISTORIES=1 node_modules/.bin/vitest run test/replay/record-webhook-histories.test.ts
//   RECORD_HISTORIES=first-attempts …   (the retries after a first attempt the dispatcher made)
//
// Each delivery goes through the real dispatcher and delivery worker to the
// receiver stand-in, which answers as each case needs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveryWorkflowId } from '../../domain/webhooks/contract.ts';
import { createEndpoint, enqueueTestEvent } from '../../services/webhooks/webhooks.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startTestWebhooks, WEBHOOK_TEST_ENV, type TestWebhooks } from '../helpers/webhook-delivery.ts';

const DIR = join(import.meta.dirname, '..', 'histories', 'webhooks');

describe.skipIf(!process.env.RECORD_HISTORIES)('recording webhook delivery histories', () => {
  let stack: TestStack;
  let webhooks: TestWebhooks;
  const em = () => stack.orm.em.fork();

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false, apiEnv: WEBHOOK_TEST_ENV });
    webhooks = await startTestWebhooks(stack, { firstAttemptsFromDispatcher: process.env.RECORD_HISTORIES === 'first-attempts' });
  }, 120_000);
  afterAll(async () => {
    await webhooks?.stop();
    await stack?.stop();
  });

  /** One test event to a hook answering `answer` first; the delivery's closed history, saved as `name`. */
  async function record(name: string, hook: string, answer: { status: number; times: number } | null, outcome: string) {
    if (answer) {
      const reply = await fetch(`${webhooks.receiver.url}/__admin/answers`, { method: 'POST', body: JSON.stringify({ hook, ...answer }) });
      expect(reply.ok).toBe(true);
    }
    const accountId = await stack.createAccount('growth');
    const { endpoint } = await createEndpoint(em(), webhooks.config.secretKey, { accountId, url: `${webhooks.receiver.url}${hook}`, events: ['research.completed'] }, new Date());
    const deliveryId = (await enqueueTestEvent(em(), accountId, endpoint.id, new Date()))!;
    const handle = stack.temporal.workflow.getHandle(webhookDeliveryWorkflowId(deliveryId, 0));
    for (let waited = 0; ; waited += 100) {
      try {
        expect(await handle.result()).toBe(outcome);
        break;
      } catch (error) {
        // Not started yet: the dispatcher starts it within a moment.
        if (waited > 30_000) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    mkdirSync(DIR, { recursive: true });
    writeFileSync(join(DIR, `${name}.json`), `${historyToJSON(await handle.fetchHistory())}\n`);
  }

  // Workflows of every attempt (before the dispatcher sent first attempts): RECORD_HISTORIES=1.
  const everyAttempt = process.env.RECORD_HISTORIES !== 'first-attempts';
  it.runIf(everyAttempt)('delivered at the first attempt', () => record('delivered', '/hooks/first', null, 'delivered'), 60_000);
  it.runIf(everyAttempt)('delivered after a 503', () => record('delivered-after-retry', '/hooks/retried', { status: 503, times: 1 }, 'delivered'), 60_000);
  it.runIf(everyAttempt)('failed for good on 410 Gone', () => record('failed-gone', '/hooks/gone', { status: 410, times: 1 }, 'failed'), 60_000);
  // The retries of a first attempt the dispatcher made: RECORD_HISTORIES=first-attempts.
  it.runIf(!everyAttempt)('delivered at the second attempt after the dispatcher’s first', () => record('retried-after-first-attempt', '/hooks/second', { status: 503, times: 1 }, 'delivered'), 60_000);
});
