import { Client, Connection } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.ts';
import { verifyEmail } from '../../integrations/mail/templates/index.ts';
import { enqueueMail, MAIL_OUTBOX_SEARCH_ATTRIBUTES, nudgeMailOutbox } from '../../services/mail/outbox.ts';
import { mailOutboxWorkflowId, mailTaskQueue } from '../../domain/mail/outbox-contract.ts';
import { ensureMailOutboxSchedule } from '../../worker/mail-outbox-schedule.ts';
import { startTestMailOutboxWorker, startTestMailSandbox, type TestMailOutboxWorker, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let sender: TestMailOutboxWorker;

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  mail = await startTestMailSandbox();
  sender = await startTestMailOutboxWorker({ config: stack.config, orm: stack.orm, clock: stack.clock.now, mail: mail.config });
});
afterAll(async () => {
  await sender?.stop();
  await mail?.close();
  await stack?.stop();
});

describe('the outbox Schedule (the safety net behind the nudges)', () => {
  it('a nudge that cannot reach Temporal resolves; the Schedule sends the mail', async () => {
    await enqueueMail(stack.orm.em.fork(), { accountId: null, dedupeKey: 'missed-nudge', message: verifyEmail({ to: 'missed@example.com', url: 'http://x.test/' }) });
    const closed = new Client({ connection: await Connection.connect({ address: stack.config.temporal.address }) });
    await closed.connection.close();
    await expect(nudgeMailOutbox(closed, stack.config.temporal.taskQueue, createLogger('test', 'silent'))).resolves.toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mail.sandbox.messages('missed@example.com')).toHaveLength(0);

    await ensureMailOutboxSchedule(stack.temporal, stack.config.temporal.taskQueue);
    // Idempotent at every worker start.
    await ensureMailOutboxSchedule(stack.temporal, stack.config.temporal.taskQueue);
    const handle = stack.temporal.schedule.getHandle(`mail-outbox-${stack.config.temporal.taskQueue}`);
    try {
      const described = await handle.describe();
      expect(described.spec.intervals?.[0]?.every).toBe(60_000);
      expect(described.action).toMatchObject({ workflowType: 'mailOutboxWorkflow', taskQueue: mailTaskQueue(stack.config.temporal.taskQueue) });
      // Out of the Temporal UI's default list, like the sweeps.
      const action = described.action as { typedSearchAttributes?: TypedSearchAttributes };
      expect(action.typedSearchAttributes?.get(MAIL_OUTBOX_SEARCH_ATTRIBUTES[0].key)).toBe('prospect-maintenance');
      // Fire a run now instead of waiting for the minute.
      await handle.trigger();
      const message = await mail.waitForMessage('missed@example.com');
      expect(message.subject).toBe('Verify your e-mail address');
    } finally {
      await handle.delete();
    }
  });

  it('a nudged run is in the maintenance division too', async () => {
    await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, createLogger('test', 'silent'));
    const run = stack.temporal.workflow.getHandle(mailOutboxWorkflowId(stack.config.temporal.taskQueue));
    await run.result();
    expect((await run.describe()).typedSearchAttributes.get(MAIL_OUTBOX_SEARCH_ATTRIBUTES[0].key)).toBe('prospect-maintenance');
  });
});
