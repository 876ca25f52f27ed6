import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporalHistoryEraser } from '../../activities/purge.ts';
import { RESEARCH_WORKFLOW_TYPE } from '../../domain/research/contract.ts';
import { noPurgeCounts } from '../../domain/retention/retention.ts';
import { purgeResearchLogs, type HistoryEraser } from '../../services/retention/purge.ts';
import { rows } from '../helpers/research-runs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { hasHistory, historiesLeft, monthsAfter, runPurge } from './purge-helpers.ts';

const OLD_JOBS = 25;
const WITH_HISTORY = 12;

describe('a purge killed in the middle of a batch', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  /** Research logs of two years ago; the first ones with a workflow the server still holds (on a queue no worker polls). */
  async function seedOldJobs(accountId: number, now: Date): Promise<{ ids: string[]; withHistory: string[] }> {
    const ids = Array.from({ length: OLD_JOBS }, (_, index) => `res_old${String(index).padStart(2, '0')}${randomBytes(8).toString('hex')}`);
    const submittedAt = monthsAfter(now, -24);
    for (const id of ids) {
      await rows(
        stack,
        `insert into research_job (id, account_id, email, request, status, error, submitted_at, completed_at)
         values (?, ?, 'someone@example.com', '{"email":"someone@example.com"}', 'failed', 'timeout', ?, ?)`,
        [id, accountId, submittedAt, submittedAt],
      );
    }
    const withHistory = ids.slice(0, WITH_HISTORY);
    const taskQueue = `no-worker-${randomBytes(4).toString('hex')}`;
    for (const id of withHistory) {
      await stack.temporal.workflow.start(RESEARCH_WORKFLOW_TYPE, { workflowId: id, taskQueue, args: [{ researchId: id, submittedAtMs: 0, deadlineMs: 1 }] });
    }
    return { ids, withHistory };
  }

  it('is finished by the next run: every row and history goes, none is deleted or counted twice', async () => {
    const accountId = await stack.createAccount('growth');
    const now = stack.clock.now();
    const { withHistory } = await seedOldJobs(accountId, now);
    const recentId = `res_recent${randomBytes(10).toString('hex')}`;
    await rows(
      stack,
      `insert into research_job (id, account_id, email, request, status, submitted_at) values (?, ?, 'x@example.com', '{"email":"x@example.com"}', 'queued', ?)`,
      [recentId, accountId, now],
    );

    // The worker dies after five history deletions of the first batch, before its rows are deleted.
    const real = temporalHistoryEraser(stack.temporal);
    let calls = 0;
    const dying: HistoryEraser = {
      async erase(workflowId) {
        calls += 1;
        if (calls > 5) throw new Error('worker killed');
        return real.erase(workflowId);
      },
    };
    await expect(purgeResearchLogs(stack.orm.em.fork(), dying, now, 10)).rejects.toThrow('worker killed');
    const marked = (await rows(stack, 'select id from research_job where history_deleted_at is not null')).map((row) => String(row.id));
    expect(marked).toHaveLength(5);
    expect(await rows(stack, 'select count(*)::int as n from research_job')).toEqual([{ n: OLD_JOBS + 1 }]);
    const erasedBefore = withHistory.filter((id) => marked.includes(id));

    // The next run, in batches of 10 and continuing as new after every step, finishes the work.
    const report = await runPurge(stack, { now: now.toISOString(), batchSize: 10, stepsPerRun: 1 });
    expect(report.deleted).toEqual({ ...noPurgeCounts(), researchJobs: OLD_JOBS, researchHistories: WITH_HISTORY - erasedBefore.length });
    expect((await rows(stack, 'select id from research_job')).map((row) => row.id)).toEqual([recentId]);
    expect(await historiesLeft(stack, withHistory)).toEqual([]);

    // And a run after it finds nothing.
    expect((await runPurge(stack, { now: now.toISOString(), batchSize: 10 })).deleted).toEqual(noPurgeCounts());
  }, 180_000);

  it('leaves the rows of a batch whose history deletions failed, and deletes no history of a job it keeps', async () => {
    const accountId = await stack.createAccount('starter');
    const now = stack.clock.now();
    const { ids, withHistory } = await seedOldJobs(accountId, now);
    const refusing: HistoryEraser = {
      async erase() {
        throw new Error('Temporal unavailable');
      },
    };
    await expect(purgeResearchLogs(stack.orm.em.fork(), refusing, now, 50)).rejects.toThrow('Temporal unavailable');
    expect((await rows(stack, 'select id from research_job where account_id = ? order by id', [accountId])).map((row) => row.id)).toEqual([...ids].sort());
    for (const id of withHistory) expect(await hasHistory(stack, id)).toBe(true);

    const report = await runPurge(stack, { now: now.toISOString() });
    expect(report.deleted).toEqual({ ...noPurgeCounts(), researchJobs: OLD_JOBS, researchHistories: WITH_HISTORY });
    expect(await historiesLeft(stack, withHistory)).toEqual([]);
  }, 180_000);
});
