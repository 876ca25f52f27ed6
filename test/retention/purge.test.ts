import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noPurgeCounts } from '../../domain/retention/retention.ts';
import { researchCompleted, rows } from '../helpers/research-runs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { accountRowCounts, addFinishedList, addWebhookEndpoint, hasHistory, historiesLeft, historyGone, monthsAfter, runPurge } from './purge-helpers.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('the daily purge (research logs 12 months, error logs 6)', () => {
  let stack: TestStack;
  /** Insights fail for these people's jobs: the job ends failed/internal_error. */
  const failingEmails = new Set<string>();

  beforeAll(async () => {
    stack = await startTestStack({
      generator: (real) => ({
        generate: async (input) => {
          if (input.person && failingEmails.has(input.person.email)) throw new TypeError('bug in the insights step');
          return real.generate(input);
        },
      }),
    });
  });
  afterAll(() => stack?.stop());

  async function researchFailed(key: string, email: string): Promise<string> {
    failingEmails.add(email);
    const accepted = await stack.api.research(key, { email });
    const ended = await stack.api.waitForEnd(key, accepted.body.research_id, 60_000);
    expect(ended.body).toEqual({ research_id: accepted.body.research_id, status: 'failed', error: 'internal_error' });
    return accepted.body.research_id;
  }

  it('deletes what is older, keeps what is not, the enriched rows and the ledger', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const people = stack.providerWorld.world.samplePeople({ knownTo: 'both' }, 6).map((person) => person.email);
    const start = stack.clock.now();
    await addWebhookEndpoint(stack, accountId);
    // A test event sent from the Webhooks page belongs to no job: it goes by its own age.
    await rows(
      stack,
      `insert into webhook_delivery (id, endpoint_id, account_id, event_type, payload, status, created_at)
       select 'msg_test_event', id, account_id, 'research.completed', '{}', 'delivered', ? from webhook_endpoint where account_id = ?`,
      [start, accountId],
    );

    // Month 0: a completed and a failed job, 13 months old at the purge.
    const old = await researchCompleted(stack, key, { email: people[0] });
    const oldFailed = await researchFailed(key, people[1]!);
    // Day 150 (about 8 months old at the purge): the failed job's error details go, its row stays.
    stack.clock.advanceDays(150);
    const middle = await researchCompleted(stack, key, { email: people[2] });
    const middleFailed = await researchFailed(key, people[3]!);
    // Day 300 (about 3 months old at the purge): everything stays.
    stack.clock.advanceDays(150);
    const recent = await researchCompleted(stack, key, { email: people[4] });
    const recentFailed = await researchFailed(key, people[5]!);

    await addFinishedList(stack, accountId, 'lst_purge_old', start);
    await addFinishedList(stack, accountId, 'lst_purge_recent', stack.clock.now());
    const before = await accountRowCounts(stack, accountId);
    // One consume per job, a refund per failure, and the cycle resets of the months in between.
    expect(before.research_job).toBe(6);
    expect(before.decision_maker).toBeGreaterThan(0);
    expect(before.webhook_delivery).toBe(7);
    const ledgerBefore = await rows(stack, 'select * from credit_ledger_entry where account_id = ? order by id', [accountId]);

    const report = await runPurge(stack, { now: monthsAfter(start, 13).toISOString() });
    expect(report.deleted).toEqual({ ...noPurgeCounts(), researchJobs: 2, researchHistories: 2, errorHistories: 1, webhookDeliveries: 3, prospectLists: 1 });
    const deliveries = await rows(stack, 'select research_id from webhook_delivery where account_id = ? order by research_id', [accountId]);
    expect(deliveries.map((delivery) => delivery.research_id)).toEqual([middle.researchId, middleFailed, recent.researchId, recentFailed].sort());

    const jobs = await rows(stack, 'select id, status, error, history_deleted_at from research_job where account_id = ? order by submitted_at', [accountId]);
    expect(jobs.map((job) => job.id)).toEqual([middle.researchId, middleFailed, recent.researchId, recentFailed]);
    expect(jobs.map((job) => job.history_deleted_at !== null)).toEqual([false, true, false, false]);
    expect(await historiesLeft(stack, [old.researchId, oldFailed, middleFailed])).toEqual([]);
    for (const kept of [middle.researchId, recent.researchId, recentFailed]) expect(await hasHistory(stack, kept)).toBe(true);

    // The failed row keeps the spec's reply; the deleted jobs are unknown now.
    expect((await stack.api.status(key, middleFailed)).body).toEqual({ research_id: middleFailed, status: 'failed', error: 'internal_error' });
    expect((await stack.api.status(key, middle.researchId)).body.status).toBe('completed');
    expect(await stack.api.status(key, old.researchId)).toMatchObject({ status: 404, body: { error: 'not_found' } });

    // Enriched rows are not deleted by age (docs/api.md#your-data); the ledger is a billing record.
    const after = await accountRowCounts(stack, accountId);
    expect(after).toEqual({ ...before, research_job: 4, webhook_delivery: 4, prospect_list: 1 });
    expect(await rows(stack, 'select * from credit_ledger_entry where account_id = ? order by id', [accountId])).toEqual(ledgerBefore);
    expect(ledgerBefore.filter((entry) => entry.research_id === old.researchId).map((entry) => entry.kind)).toEqual(['consume']);
    expect(ledgerBefore.filter((entry) => entry.research_id === oldFailed).map((entry) => entry.kind)).toEqual(['consume', 'refund']);

    // Idempotent: a second purge of the same day finds nothing left to do.
    expect((await runPurge(stack, { now: monthsAfter(start, 13).toISOString() })).deleted).toEqual(noPurgeCounts());
    // A year after the middle jobs, they go too (the failed one's history was gone already).
    const later = await runPurge(stack, { now: new Date(start.getTime() + (150 + 370) * DAY_MS).toISOString() });
    expect(later.deleted).toEqual({ ...noPurgeCounts(), researchJobs: 2, researchHistories: 1, errorHistories: 1, webhookDeliveries: 2 });
    expect(await historyGone(stack, middle.researchId)).toBe(true);
  }, 300_000);

  it('keeps the ledger free of foreign keys to jobs: its research id is an opaque string', async () => {
    const foreignKeys = await rows(
      stack,
      `select conname, confrelid::regclass::text as target from pg_constraint
        where conrelid = 'credit_ledger_entry'::regclass and contype = 'f'`,
    );
    expect(foreignKeys.map((key) => key.target)).toEqual(['account']);
  });

  it('reads its clock from the worker when the run names no "now" (the Schedule starts it so)', async () => {
    const { accountId, key } = await stack.createCustomer('starter');
    const [email] = stack.providerWorld.world.samplePeople({ knownTo: 'pdl' }, 1).map((person) => person.email);
    const job = await researchCompleted(stack, key, { email });
    const untouched = await runPurge(stack, {});
    expect(untouched.deleted.researchJobs).toBe(0);
    expect(new Date(untouched.now).getTime()).toBeCloseTo(stack.clock.now().getTime(), -4);

    stack.clock.advanceDays(367);
    const report = await runPurge(stack, {});
    expect(report.deleted.researchJobs).toBeGreaterThanOrEqual(1);
    expect(await accountRowCounts(stack, accountId)).toMatchObject({ research_job: 0, credit_ledger_entry: 1, prospect: 1 });
    expect(await historyGone(stack, job.researchId)).toBe(true);
  }, 180_000);

  it('clears the SMTP errors kept on mail sent or given up more than 6 months ago, not on mail still being tried', async () => {
    const accountId = await stack.createAccount('free');
    const now = stack.clock.now();
    const mails = {
      sentLongAgo: { createdAt: monthsAfter(now, -7), sentAt: monthsAfter(now, -7), failedAt: null },
      givenUpLongAgo: { createdAt: monthsAfter(now, -9), sentAt: null, failedAt: monthsAfter(now, -8) },
      sentRecently: { createdAt: monthsAfter(now, -5), sentAt: monthsAfter(now, -5), failedAt: null },
      stillTried: { createdAt: monthsAfter(now, -8), sentAt: null, failedAt: null },
    };
    for (const [name, mail] of Object.entries(mails)) {
      await rows(
        stack,
        `insert into email_outbox (account_id, dedupe_key, recipient, subject, text, html, created_at, next_attempt_at, sent_at, failed_at, attempts, last_error)
         values (?, ?, 'owner@example.com', 'Usage', 'text', '<p>html</p>', ?, ?, ?, ?, 3, '550 5.1.1 mailbox unavailable')`,
        [accountId, `${name}:${accountId}`, mail.createdAt, mail.createdAt, mail.sentAt, mail.failedAt],
      );
    }
    const report = await runPurge(stack, { now: now.toISOString() });
    expect(report.deleted.mailErrors).toBe(2);
    const left = await rows(stack, 'select dedupe_key, last_error from email_outbox where account_id = ? order by dedupe_key', [accountId]);
    expect(Object.fromEntries(left.map((mail) => [String(mail.dedupe_key).split(':')[0], mail.last_error]))).toEqual({
      givenUpLongAgo: null,
      sentLongAgo: null,
      sentRecently: '550 5.1.1 mailbox unavailable',
      stillTried: '550 5.1.1 mailbox unavailable',
    });
  });
});
