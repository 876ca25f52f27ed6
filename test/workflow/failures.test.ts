import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapApi } from '../../api/server.ts';
import { createLogger } from '../../lib/logger.ts';
import { createApiCaller } from '../helpers/api-caller.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

async function creditState(stack: TestStack, accountId: number) {
  const connection = stack.orm.em.fork().getConnection();
  const [account] = await connection.execute('select credits_used from account where id = ?', [accountId]);
  const rows = await connection.execute('select kind from credit_ledger_entry where account_id = ? order by id', [accountId]);
  return { used: account.credits_used as number, kinds: rows.map((row) => String(row.kind)) };
}

describe('the 3-minute deadline (configurable here to 4 s)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ deadlineMs: 4_000 });
    // Every provider answers after 10 s: no job can finish in time.
    stack.providerWorld.setLatency({ '*': { meanMs: 10_000 } });
  });
  afterAll(() => stack?.stop());

  it('ends the job failed/timeout and refunds its credit', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const accepted = await stack.api.research(key, { email: 'slow.person@nowhere-corp.com' });
    const ended = await stack.api.waitForEnd(key, accepted.body.research_id, 30_000);
    expect(ended.body).toEqual({ research_id: accepted.body.research_id, status: 'failed', error: 'timeout' });
    expect(await creditState(stack, accountId)).toEqual({ used: 0, kinds: ['consume', 'refund'] });
    // Ended by the workflow at the deadline itself, while its lookups still
    // waited: not when they returned (10 s) nor by the API's backstop.
    const [row] = await stack.orm.em.fork().getConnection().execute(
      'select extract(epoch from completed_at - submitted_at) * 1000 as ms from research_job where id = ?',
      [accepted.body.research_id],
    );
    expect(Number(row.ms)).toBeGreaterThanOrEqual(4_000);
    expect(Number(row.ms)).toBeLessThan(4_000 + 3_000);
    // The job row ends inside the refund activity; the workflow closes one task later.
    const handle = stack.temporal.workflow.getHandle(accepted.body.research_id);
    expect(await handle.result()).toBe('failed');
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });
});

describe('an unrecoverable activity failure', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      generator: () => ({
        generate: async () => {
          throw new TypeError('bug in the insights step');
        },
      }),
    });
  });
  afterAll(() => stack?.stop());

  it('ends the job failed/internal_error and refunds its credit', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const email = stack.providerWorld.world.samplePeople({ knownTo: 'both' }, 1)[0].email;
    const accepted = await stack.api.research(key, { email });
    const ended = await stack.api.waitForEnd(key, accepted.body.research_id, 45_000);
    expect(ended.body).toEqual({ research_id: accepted.body.research_id, status: 'failed', error: 'internal_error' });
    expect(await creditState(stack, accountId)).toEqual({ used: 0, kinds: ['consume', 'refund'] });
  });
});

describe('a workflow that cannot be started', () => {
  let stack: TestStack;
  let closeApi: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false, deadlineMs: 1_500, backstopGraceMs: 500 });
  });
  afterEach(async () => closeApi?.());
  afterAll(() => stack?.stop());

  it('is accepted (202) and waits `queued`; not started by its deadline, it ends failed/timeout with one refund', async () => {
    // An API whose Temporal namespace does not exist: every workflow start it tries fails.
    const config = { ...stack.config, temporal: { ...stack.config.temporal, namespace: 'no-such-namespace' } };
    const api = await bootstrapApi(config, createLogger('test', 'silent'));
    closeApi = api.close;
    const caller = createApiCaller(api.url);
    const { accountId, key } = await stack.createCustomer('growth');
    const reply = await caller.research(key, { email: 'nobody@nowhere-corp.com' });
    expect(reply.status).toBe(202);
    const researchId = reply.body.research_id;
    expect((await caller.status(key, researchId)).body).toEqual({ research_id: researchId, status: 'queued', estimated_seconds: expect.any(Number) });
    expect(await creditState(stack, accountId)).toEqual({ used: 1, kinds: ['consume'] });

    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await caller.status(key, researchId)).body).toEqual({ research_id: researchId, status: 'failed', error: 'timeout' });
    expect(await creditState(stack, accountId)).toEqual({ used: 0, kinds: ['consume', 'refund'] });
  });
});

describe('a job first picked up after its deadline (worker outage)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // A long backstop grace: the workflow itself must end the job, not a status read.
    stack = await startTestStack({ withWorker: false, deadlineMs: 1_500, backstopGraceMs: 600_000 });
  });
  afterAll(() => stack?.stop());

  it('fails at once with timeout and a refund instead of running without a deadline', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const email = stack.providerWorld.world.samplePeople({ knownTo: 'both' }, 1)[0].email;
    const accepted = await stack.api.research(key, { email });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await stack.startWorker();
    expect(await stack.temporal.workflow.getHandle(accepted.body.research_id).result()).toBe('failed');
    const status = await stack.api.status(key, accepted.body.research_id);
    expect(status.body).toEqual({ research_id: accepted.body.research_id, status: 'failed', error: 'timeout' });
    expect(await creditState(stack, accountId)).toEqual({ used: 0, kinds: ['consume', 'refund'] });
    expect(stack.providerWorld.calls()).toBe(0);
  });
});
