import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Orm } from '../../db/orm.ts';
import { parseFairnessWeights } from '../../domain/research/fairness.ts';
import { createAccount } from '../../services/accounts/accounts.ts';
import { claimUnstartedJobs, markWorkflowsStarted, recordResearchJob } from '../../services/research/workflow-start-outbox.ts';
import { startJobWorkflow, startWorkflowStartRelay } from '../../services/research/workflow-start-relay.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/scratch-database.ts';

// The outbox of workflow starts on its own: a fresh database with no API or
// worker relaying (so nothing else claims its rows), and for the relay, the
// run's Temporal server with a task queue no worker polls (workflows are
// started, never run).

let orm: Orm;
let temporal: Client;
let accountId: number;
let database: ScratchDatabase;
const silent = pino({ level: 'silent' });
const DEADLINE_MS = 180_000;

beforeAll(async () => {
  database = await createScratchDatabase('start_outbox', { poolMax: 8 });
  [orm] = database.orms as [Orm];
  temporal = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
  accountId = (await createAccount(orm.em.fork(), { ownerEmail: 'outbox@example.com', plan: 'scale', language: 'en' }, new Date())).id;
});
afterAll(async () => {
  await temporal?.connection.close();
  await database?.drop();
});
beforeEach(async () => {
  await orm.em.fork().execute('delete from research_job');
});

const newId = () => `res_${randomBytes(12).toString('hex')}`;
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** Records one job per submission time, in one transaction; their ids in the same order. */
async function recordJobs(submittedAt: Date[]): Promise<string[]> {
  const ids = submittedAt.map(() => newId());
  await orm.em.fork().transactional(async (tx) => {
    for (const [index, at] of submittedAt.entries()) {
      recordResearchJob(tx, { id: ids[index], accountId, productId: null, apiKeyId: null, request: { email: `p${index}@example.com` }, submittedAt: at });
    }
  });
  return ids;
}

const claim = (options = { limit: 100 }) => orm.em.fork().transactional((tx) => claimUnstartedJobs(tx, { submittedBefore: new Date(), ...options }));

describe('recordResearchJob', () => {
  it('writes the job and its start intent inside the caller transaction: nothing when it rolls back', async () => {
    const id = newId();
    await orm.em.fork().transactional(async (tx) => {
      recordResearchJob(tx, { id, accountId, productId: null, apiKeyId: null, request: { email: 'x@example.com' }, submittedAt: minutesAgo(1) });
      await tx.flush();
      throw new Error('rollback');
    }).catch(() => {});
    expect(await orm.em.fork().execute('select id from research_job')).toEqual([]);

    await recordJobs([minutesAgo(1)]);
    expect(await orm.em.fork().execute('select status, workflow_started_at from research_job')).toEqual([{ status: 'queued', workflow_started_at: null }]);
  });
});

describe('the relay query (claimUnstartedJobs)', () => {
  it('claims only queued jobs without a started workflow, submitted before the cut-off, oldest first, at most `limit`', async () => {
    const ids = await recordJobs([minutesAgo(3), minutesAgo(5), minutesAgo(1), minutesAgo(4), minutesAgo(2)]);
    const [started, ended, tooYoung] = await recordJobs([minutesAgo(10), minutesAgo(9), new Date(Date.now() + 60_000)]);
    await markWorkflowsStarted(orm.em.fork(), [started], new Date());
    await orm.em.fork().execute("update research_job set status = 'failed', error = 'timeout' where id = ?", [ended]);

    const oldestFirst = [ids[1], ids[3], ids[0], ids[4], ids[2]];
    expect((await claim({ limit: 3 })).map((job) => job.id)).toEqual(oldestFirst.slice(0, 3));
    const all = await claim();
    expect(all.map((job) => job.id)).toEqual(oldestFirst);
    expect(all.map((job) => job.id)).not.toContain(tooYoung);
    expect(all[0]).toEqual({ id: ids[1], accountId, plan: 'scale', submittedAt: expect.any(Date), source: 'api' });
    expect(all[0].submittedAt.getTime()).toBeCloseTo(minutesAgo(5).getTime(), -4);

    // Once marked, a job is never claimed again.
    await markWorkflowsStarted(orm.em.fork(), oldestFirst.slice(0, 4), new Date());
    expect((await claim()).map((job) => job.id)).toEqual([ids[2]]);
  });

  it('is safe with two relays at once: the second skips the rows the first holds, without waiting for it', async () => {
    const ids = await recordJobs([6, 5, 4, 3, 2, 1].map(minutesAgo));
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstClaim!: (ids: string[]) => void;
    const firstClaimed = new Promise<string[]>((resolve) => {
      firstClaim = resolve;
    });
    const first = orm.em.fork().transactional(async (tx) => {
      firstClaim((await claimUnstartedJobs(tx, { submittedBefore: new Date(), limit: 3 })).map((job) => job.id));
      await held; // the first relay is still starting its workflows
    });
    try {
      expect(await firstClaimed).toEqual(ids.slice(0, 3));

      // The second relay gets the next three at once, starts them and marks them.
      const startedAt = Date.now();
      const second = await orm.em.fork().transactional(async (tx) => {
        const claimed = await claimUnstartedJobs(tx, { submittedBefore: new Date(), limit: 3 });
        await markWorkflowsStarted(tx, claimed.map((job) => job.id), new Date());
        return claimed;
      });
      expect(second.map((job) => job.id)).toEqual(ids.slice(3));
      expect(Date.now() - startedAt).toBeLessThan(2_000);
      // With everything held or taken, a third finds nothing (rather than waiting).
      expect(await claim()).toEqual([]);
      // A mark of a held row (the API's, after its own start) skips it rather than waiting for the relay.
      const markedAt = Date.now();
      await markWorkflowsStarted(orm.em.fork(), [ids[0]], new Date());
      expect(Date.now() - markedAt).toBeLessThan(2_000);
    } finally {
      release();
      await first;
    }
    // The first let go without marking its jobs (as when its starts failed): they are claimable again.
    expect((await claim()).map((job) => job.id)).toEqual(ids.slice(0, 3));
  });
});

describe('the relay', () => {
  const taskQueue = `no-worker-${randomBytes(4).toString('hex')}`;
  // The account is on Scale: its jobs carry Scale's configured weight.
  const starts = () => ({ temporal, taskQueue, deadlineMs: DEADLINE_MS, fairnessWeights: parseFairnessWeights('scale=2.5') });
  const relayOf = () => startWorkflowStartRelay({ ...starts(), orm, clock: () => new Date(), logger: silent, intervalMs: 60_000, batchSize: 4, graceMs: 0 });

  async function startInput(id: string) {
    const history = await temporal.workflow.getHandle(id).fetchHistory();
    const payload = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads![0];
    return JSON.parse(Buffer.from(payload.data!).toString('utf8'));
  }

  it('starts every waiting job once, in batches, with its submission time, its priority and its account’s fairness key and weight, and marks it; a workflow that exists counts as started', async () => {
    const submittedAt = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0.5].map(minutesAgo);
    const ids = await recordJobs(submittedAt);
    // This one's first try got through, but the API died before marking it.
    await startJobWorkflow(starts(), { id: ids[2], accountId, plan: 'scale', submittedAt: submittedAt[2], source: 'api' }, 5_000);

    const relay = relayOf();
    try {
      expect(await relay.runOnce()).toBe(10); // the start-up pass, in batches of 4
      expect(await relay.runOnce()).toBe(0);
    } finally {
      await relay.stop();
    }
    const rows: Array<{ id: string; workflow_started_at: Date | null }> = await orm.em.fork().execute('select id, workflow_started_at from research_job');
    expect(rows.filter((row) => row.workflow_started_at === null)).toEqual([]);
    for (const [index, id] of ids.entries()) {
      const description = await temporal.workflow.getHandle(id).describe();
      expect(description.status.name).toBe('RUNNING');
      expect(description.priority).toEqual({ priorityKey: 1, fairnessKey: `account-${accountId}`, fairnessWeight: 2.5 });
      expect(await startInput(id)).toEqual({ researchId: id, submittedAtMs: submittedAt[index].getTime(), deadlineMs: DEADLINE_MS });
    }
  });

  it('two relays at once start each job exactly once between them', async () => {
    const ids = await recordJobs(Array.from({ length: 30 }, (_, index) => minutesAgo(30 - index)));
    const [a, b] = [relayOf(), relayOf()];
    let started: number[];
    try {
      started = await Promise.all([a.runOnce(), b.runOnce()]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    // A job started by both would count twice (an existing workflow counts as started).
    expect(started[0] + started[1]).toBe(ids.length);
    expect(started[0]).toBeGreaterThan(0);
    expect(started[1]).toBeGreaterThan(0);
    expect(await claim()).toEqual([]);
  });

  it('while Temporal is unreachable, starts nothing, holds nothing, and keeps the jobs waiting', async () => {
    const [id] = await recordJobs([minutesAgo(1)]);
    const unreachable = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
    const relay = startWorkflowStartRelay({ orm, temporal: unreachable, taskQueue, deadlineMs: DEADLINE_MS, clock: () => new Date(), logger: silent, intervalMs: 60_000, graceMs: 0 });
    try {
      expect(await relay.runOnce()).toBe(0);
    } finally {
      await relay.stop();
      await unreachable.connection.close().catch(() => {});
    }
    expect((await claim()).map((job) => job.id)).toEqual([id]);
  }, 30_000);
});
