// Jobs of one account failing at once (a worker lost mid-run ends several
// together): each is failed and refunded once, with no deadlock between the
// refunds' account lock and the key-share lock the job-end trigger takes on
// the account row when it writes the webhook deliveries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWebhookConfig } from '../../integrations/webhooks/config.ts';
import { failJob } from '../../services/research/jobs.ts';
import { createEndpoint } from '../../services/webhooks/webhooks.ts';
import { checkInvariants } from '../../scripts/lib/chaos/invariants.ts';
import pg from 'pg';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
}, 120_000);
afterAll(async () => stack?.stop());

describe('jobs of one account failing together', () => {
  it('are each failed and refunded once, without a deadlock, where the account has a webhook endpoint', async () => {
    const { accountId, key } = await stack.createCustomer('scale');
    await createEndpoint(stack.orm.em.fork(), loadWebhookConfig({}).secretKey, { accountId, url: 'https://hooks.example.com/failed', events: ['research.failed'] }, new Date());
    const people = stack.providerWorld.world.samplePeople({}, 12);
    const ids: string[] = [];
    for (const person of people) ids.push((await stack.api.research(key, { email: person.email })).body.research_id);
    expect(ids).toHaveLength(12);

    const results = await Promise.allSettled(ids.map((id) => failJob(stack.orm.em.fork(), id, 'internal_error', new Date())));
    expect(results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
    expect(results.every((result) => result.status === 'fulfilled' && result.value === true)).toBe(true);

    const sql = new pg.Pool({ connectionString: stack.config.databaseUrl, max: 1 });
    try {
      const report = await checkInvariants(sql, accountId);
      expect(report.problems).toEqual([]);
      expect(report.summary).toMatchObject({ jobs: 12, failed: 12, refunds: 12, creditsUsed: 0 });
      const { rows } = await sql.query(`select count(*)::int as n from webhook_delivery where account_id = $1 and event_type = 'research.failed'`, [accountId]);
      expect(rows[0].n).toBe(12);
    } finally {
      await sql.end();
    }
  });
});
