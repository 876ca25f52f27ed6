// Lists beyond the plan's number running at once wait their turn
// (services/lists/queue.ts) on a real worker: each starts by itself when the
// running one ends, never two at once on Starter, every row researched once;
// and a turn a crash left untaken is taken by the relay.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Account } from '../../db/entities/index.ts';
import { createLogger } from '../../lib/logger.ts';
import { createListDraft, startList } from '../../services/lists/lists.ts';
import { startListRunWorkflow, startWaitingListRuns } from '../../services/lists/runs.ts';
import { creditsOf } from '../helpers/lists.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
const db = () => stack.orm.em.fork().getConnection();
const relay = () => ({ orm: stack.orm, temporal: stack.temporal, taskQueue: stack.config.temporal.taskQueue, deadlineMs: stack.config.researchDeadlineMs, clock: () => new Date(), logger: createLogger('test', 'silent') });

beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);
afterAll(() => stack?.stop());

async function startedList(accountId: number, emails: string[]): Promise<{ id: string; status: string }> {
  const account = await stack.orm.em.fork().findOneOrFail(Account, accountId);
  const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: emails.join('\n') }, new Date());
  const list = await startList(stack.orm.em.fork(), accountId, draft.id, {}, new Date());
  if (list.status === 'running') await startListRunWorkflow(relay(), stack.orm.em.fork(), list.id, new Date());
  return { id: list.id, status: list.status };
}

it('runs a Starter account\'s three lists one after another, each started by itself, every row once', async () => {
  const accountId = await stack.createAccount('starter');
  await stack.createKey(accountId);
  const people = stack.providerWorld.world.samplePeople({}, 9).map((person) => person.email);
  const lists = [await startedList(accountId, people.slice(0, 3)), await startedList(accountId, people.slice(3, 6)), await startedList(accountId, people.slice(6, 9))];
  expect(lists.map((list) => list.status)).toEqual(['running', 'queued', 'queued']);

  // The worker's relay, as worker/roles.ts runs it; sampled: never two of the account's lists running.
  let peakRunning = 0;
  let isDone = false;
  const relayLoop = (async () => {
    while (!isDone) {
      await startWaitingListRuns(relay());
      const [row] = await db().execute(`select count(*)::int as n from prospect_list where account_id = ? and status in ('running', 'cancelling')`, [accountId]);
      peakRunning = Math.max(peakRunning, row.n);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const statuses = async () => ((await db().execute('select status from prospect_list where account_id = ? order by queued_at nulls first', [accountId])) as Array<{ status: string }>).map((row) => row.status);
  await expect.poll(statuses, { timeout: 90_000, interval: 500 }).toEqual(['completed', 'completed', 'completed']);
  isDone = true;
  await relayLoop;
  expect(peakRunning).toBe(1);

  // Each one started after the one before it ended.
  const times: Array<{ started_at: Date; finished_at: Date }> = await db().execute('select started_at, finished_at from prospect_list where account_id = ? order by started_at', [accountId]);
  expect(new Date(times[1]!.started_at).getTime()).toBeGreaterThanOrEqual(new Date(times[0]!.finished_at).getTime());
  expect(new Date(times[2]!.started_at).getTime()).toBeGreaterThanOrEqual(new Date(times[1]!.finished_at).getTime());
  const jobs = await db().execute(`select source_ref, source_item from research_job where account_id = ? and source = 'list'`, [accountId]);
  expect(jobs).toHaveLength(9);
  expect((await creditsOf(stack, accountId)).consumed).toHaveLength(9);
}, 150_000);

it('a queued list whose turn a crash left untaken (the running list ended, no promotion) is promoted and started by the relay', async () => {
  const accountId = await stack.createAccount('starter');
  await stack.createKey(accountId);
  const people = stack.providerWorld.world.samplePeople({}, 12).slice(9).map((person) => person.email);
  const first = await startedList(accountId, people.slice(0, 1));
  const second = await startedList(accountId, people.slice(1, 3));
  expect(second.status).toBe('queued');
  // The running list ended by a process that did not promote (as before this change, or a crash between).
  await stack.temporal.workflow.getHandle(`list-run-${first.id}`).result();
  await db().execute(`update prospect_list set status = 'queued', started_at = null where id = ?`, [second.id]);
  expect(await startWaitingListRuns(relay())).toBe(1);
  expect(await stack.temporal.workflow.getHandle(`list-run-${second.id}`).result()).toEqual({ status: 'completed' });
  expect(await db().execute(`select id from research_job where source_ref = ?`, [second.id])).toHaveLength(2);
}, 90_000);
