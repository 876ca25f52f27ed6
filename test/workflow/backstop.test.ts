import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createStaleJobActivities } from '../../activities/stale-jobs.ts';
import { findActiveKey } from '../../services/accounts/api-keys.ts';
import { submitResearchJob } from '../../services/research/jobs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;

// No worker at first: jobs wait in `queued`, as docs/api.md#job-states describes.
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

it('the sweeper fails and refunds a job whose workflow was not running by its deadline (Temporal away, or no worker)', async () => {
  const { accountId, key } = await stack.createCustomer('growth');
  const em = stack.orm.em.fork();
  const apiKey = (await findActiveKey(em, key))!;
  const submission = await submitResearchJob(em, { apiKey, request: { email: 'orphan@nowhere-corp.com' }, idempotencyKey: null, requestHash: 'h' }, new Date(), { publicUrl: 'http://127.0.0.1:3000' });
  if (submission.outcome !== 'accepted') throw new Error(submission.outcome);
  const sweeper = createStaleJobActivities({
    orm: stack.orm,
    clock: () => new Date(),
    temporal: stack.temporal,
    staleAfterMs: stack.config.researchOverdueAfterMs,
  });

  const connection = stack.orm.em.fork().getConnection();
  const statusOf = async () => (await connection.execute('select status from research_job where id = ?', [submission.job.id]))[0].status;
  await sweeper.sweepStaleJobs();
  expect(await statusOf()).toBe('queued'); // not past its deadline yet
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  expect(await sweeper.sweepStaleJobs()).toBeGreaterThanOrEqual(1);
  expect(await sweeper.sweepStaleJobs()).toBe(0); // idempotent

  const [job] = await connection.execute('select status, error from research_job where id = ?', [submission.job.id]);
  const [account] = await connection.execute('select credits_used from account where id = ?', [accountId]);
  expect(job).toEqual({ status: 'failed', error: 'timeout' });
  expect(account.credits_used).toBe(0);
});

it('the relay starts the workflow a crashed request never started, with the submission time as its deadline base', async () => {
  const { key } = await stack.createCustomer('growth');
  const em = stack.orm.em.fork();
  const apiKey = (await findActiveKey(em, key))!;
  // The state an API killed after its transaction leaves behind: job, credit and the intent to start, no workflow.
  const submittedAt = new Date();
  const submission = await submitResearchJob(em, { apiKey, request: { email: 'relayed@nowhere-corp.com' }, idempotencyKey: null, requestHash: 'h' }, submittedAt, { publicUrl: 'http://127.0.0.1:3000' });
  if (submission.outcome !== 'accepted') throw new Error(submission.outcome);

  // The API's relay (every second, past a few seconds' grace for the API's own try) starts it.
  const connection = stack.orm.em.fork().getConnection();
  const deadline = Date.now() + 15_000;
  let row: { workflow_started_at: Date | null } | undefined;
  do {
    await new Promise((resolve) => setTimeout(resolve, 250));
    [row] = await connection.execute('select workflow_started_at from research_job where id = ?', [submission.job.id]);
  } while (row?.workflow_started_at === null && Date.now() < deadline);
  expect(row?.workflow_started_at).not.toBeNull();
  const history = await stack.temporal.workflow.getHandle(submission.job.id).fetchHistory();
  const input = JSON.parse(Buffer.from(history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0].data!).toString('utf8'));
  expect(input).toEqual({ researchId: submission.job.id, submittedAtMs: submittedAt.getTime(), deadlineMs: stack.config.researchDeadlineMs });
}, 30_000);

it('a retry with the same Idempotency-Key starts the workflow a crashed request never started', async () => {
  const { key } = await stack.createCustomer('growth');
  const em = stack.orm.em.fork();
  const apiKey = (await findActiveKey(em, key))!;
  // The state an API killed after its transaction leaves behind: job and credit, no workflow.
  const request = { email: 'retry@nowhere-corp.com' };
  const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
  const submission = await submitResearchJob(em, { apiKey, request, idempotencyKey: 'crash-retry', requestHash }, new Date(), { publicUrl: 'http://127.0.0.1:3000' });
  if (submission.outcome !== 'accepted') throw new Error(submission.outcome);

  const retry = await stack.api.research(key, request, { 'idempotency-key': 'crash-retry' });
  expect(retry.body.research_id).toBe(submission.job.id);
  const description = await stack.temporal.workflow.getHandle(submission.job.id).describe();
  expect(description.status.name).toBe('RUNNING');
});
