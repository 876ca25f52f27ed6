import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;

// No worker at first: jobs wait in `queued`, as spec §3 describes.
beforeAll(async () => {
  stack = await startTestStack({ withWorker: false, deadlineMs: 1_500, backstopGraceMs: 500 });
});
afterAll(() => stack?.stop());

it('a job no worker has picked up is `queued`, with an estimate', async () => {
  const { key } = await stack.createCustomer('growth');
  const accepted = await stack.api.research(key, { email: 'waiting@nowhere-corp.com' });
  expect(accepted.body.status).toBe('processing');
  const status = await stack.api.status(key, accepted.body.research_id);
  expect(status.body).toEqual({ research_id: accepted.body.research_id, status: 'queued', estimated_seconds: expect.any(Number) });
  expect(status.body.estimated_seconds).toBeGreaterThanOrEqual(1);
});

it('a job whose workflow vanished is reported failed/timeout after its deadline, and refunded once', async () => {
  const { accountId, key } = await stack.createCustomer('growth');
  const accepted = await stack.api.research(key, { email: 'lost@nowhere-corp.com' });
  const researchId = accepted.body.research_id;
  // An operator terminated the run: no workflow code will ever fail the job.
  await stack.temporal.workflow.getHandle(researchId).terminate('test: workflow lost');
  await new Promise((resolve) => setTimeout(resolve, 2_500));

  const replies = await Promise.all([1, 2, 3].map(() => stack.api.status(key, researchId)));
  for (const reply of replies) expect(reply.body).toEqual({ research_id: researchId, status: 'failed', error: 'timeout' });
  const connection = stack.orm.em.fork().getConnection();
  const [account] = await connection.execute('select credits_used from account where id = ?', [accountId]);
  const refunds = await connection.execute("select 1 from credit_ledger_entry where research_id = ? and kind = 'refund'", [researchId]);
  expect(account.credits_used).toBe(0);
  expect(refunds).toHaveLength(1);
});
