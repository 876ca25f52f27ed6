import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changePlan } from '../../services/accounts/accounts.ts';
import { failJob } from '../../services/research/jobs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;

// No worker: jobs stay queued, which is all these rules need, and keeps the load down.
beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
});
afterAll(() => stack?.stop());

async function account(accountId: number) {
  const rows = await stack.orm.em.fork().getConnection().execute('select plan, credits_used, credit_limit from account where id = ?', [accountId]);
  return rows[0] as { plan: string; credits_used: number; credit_limit: number };
}

async function ledger(accountId: number) {
  return stack.orm.em
    .fork()
    .getConnection()
    .execute('select kind, research_id, used_delta from credit_ledger_entry where account_id = ? order by id', [accountId]) as Promise<
    Array<{ kind: string; research_id: string | null; used_delta: number }>
  >;
}

describe('credits (docs/api.md#credits-and-plans)', () => {
  it('60 simultaneous requests against 49 remaining credits: exactly 49 accepted, one ledger row each', async () => {
    const { accountId, key } = await stack.createCustomer('starter');
    expect((await stack.api.research(key, { email: 'first@nowhere-corp.com' })).status).toBe(202);

    const replies = await Promise.all(
      Array.from({ length: 60 }, (_, index) => stack.api.research(key, { email: `person${index}@nowhere-corp.com` })),
    );
    const accepted = replies.filter((reply) => reply.status === 202);
    const refused = replies.filter((reply) => reply.status === 429);
    expect(accepted).toHaveLength(49);
    expect(refused).toHaveLength(11);
    for (const reply of refused) expect(reply.body).toEqual({ error: 'credits_exhausted', message: expect.any(String), used: 50, limit: 50 });
    expect(await account(accountId)).toMatchObject({ credits_used: 50, credit_limit: 50 });
    const consumed = (await ledger(accountId)).filter((row) => row.kind === 'consume');
    expect(consumed).toHaveLength(50);
    expect(new Set(consumed.map((row) => row.research_id)).size).toBe(50);
  });

  it('the Free plan stops at 3 with trial_limit_reached, used and limit', async () => {
    const { key } = await stack.createCustomer('free');
    for (let index = 0; index < 3; index += 1) expect((await stack.api.research(key, { email: `t${index}@nowhere-corp.com` })).status).toBe(202);
    const refused = await stack.api.research(key, { email: 't4@nowhere-corp.com' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'trial_limit_reached', used: 3, limit: 3 });
    // Says why (the Free plan's 3 credits) and how to go on (an upgrade on the Billing page).
    expect(refused.body.message).toMatch(/Free plan's 3 credits are used/);
    expect(refused.body.message).toMatch(/\/app\/billing/);
  });

  it('credits reset at the next cycle start; unused credits do not roll over', async () => {
    const { accountId, key } = await stack.createCustomer('free');
    for (let index = 0; index < 3; index += 1) await stack.api.research(key, { email: `c${index}@nowhere-corp.com` });
    expect((await stack.api.research(key, { email: 'c4@nowhere-corp.com' })).status).toBe(429);
    stack.clock.advanceDays(32);
    try {
      expect((await stack.api.research(key, { email: 'c5@nowhere-corp.com' })).status).toBe(202);
      expect(await account(accountId)).toMatchObject({ credits_used: 1, credit_limit: 3 });
      expect((await ledger(accountId)).map((row) => row.kind)).toContain('cycle_reset');
    } finally {
      stack.clock.reset();
    }
  });

  it('an upgrade applies at once: unused credits carry over plus the new plan prorated', async () => {
    const accountId = await stack.createAccount('starter');
    const statement = await changePlan(stack.orm.em.fork(), accountId, 'growth', stack.clock.now());
    // A fresh account is at the very start of its cycle: nearly the whole new allowance is prorated in.
    expect(statement.plan).toBe('growth');
    expect(statement.credit_limit).toBeGreaterThanOrEqual(50 + 190);
    expect(statement.credit_limit).toBeLessThanOrEqual(50 + 200);
    const downgrade = await changePlan(stack.orm.em.fork(), accountId, 'free', stack.clock.now());
    expect(downgrade).toMatchObject({ plan: 'growth', pending_plan: 'free' });
  });
});

describe('refunds (docs/api.md#refunds)', () => {
  it('a failed job is refunded exactly once, however often it is failed', async () => {
    const { accountId, key } = await stack.createCustomer('starter');
    const accepted = await stack.api.research(key, { email: 'refund@nowhere-corp.com' });
    const researchId = accepted.body.research_id;
    await Promise.all([1, 2, 3].map(() => failJob(stack.orm.em.fork(), researchId, 'internal_error', new Date())));
    await failJob(stack.orm.em.fork(), researchId, 'timeout', new Date());
    expect(await account(accountId)).toMatchObject({ credits_used: 0 });
    expect((await ledger(accountId)).filter((row) => row.kind === 'refund')).toHaveLength(1);
    const status = await stack.api.status(key, researchId);
    expect(status.body).toEqual({ research_id: researchId, status: 'failed', error: 'internal_error' });
  });
});
