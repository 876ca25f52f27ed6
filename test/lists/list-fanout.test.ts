// The shared fan-out under a list run started directly (workflows/list-run-workflow.ts),
// with a small window and small pages: never more rows in flight than the window,
// a new run per page (continue-as-new keeps each history small), each row's
// job recorded and charged once across the runs.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Account } from '../../db/entities/index.ts';
import { LIST_RUN_WORKFLOW_TYPE, listRunWorkflowId, type ListRunInput } from '../../domain/lists/lists.ts';
import { startWaitingListRuns } from '../../services/lists/runs.ts';
import { createListDraft, startList } from '../../services/lists/lists.ts';
import { createLogger } from '../../lib/logger.ts';
import { creditsOf } from '../helpers/lists.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
const db = () => stack.orm.em.fork().getConnection();

beforeAll(async () => {
  stack = await startTestStack();
}, 120_000);
afterAll(() => stack?.stop());

it('keeps at most `inFlight` rows running, continues as new per page, and charges each row once', async () => {
  const accountId = await stack.createAccount('growth');
  await stack.createKey(accountId);
  const account = await stack.orm.em.fork().findOneOrFail(Account, accountId);
  const emails = stack.providerWorld.world.samplePeople({}, 10).map((person) => person.email);
  const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: emails.join('\n') }, new Date());
  await startList(stack.orm.em.fork(), accountId, draft.id, {}, new Date());

  stack.providerWorld.setLatency({ '*': { meanMs: 300 } });
  const input: ListRunInput = { listId: draft.id, researchTaskQueue: stack.config.temporal.taskQueue, deadlineMs: stack.config.researchDeadlineMs, inFlight: 2, rowsPerPage: 4 };
  const handle = await stack.temporal.workflow.start(LIST_RUN_WORKFLOW_TYPE, { workflowId: listRunWorkflowId(draft.id), taskQueue: stack.config.temporal.taskQueue, args: [input] });
  let peak = 0;
  let isRunning = true;
  const sampler = (async () => {
    while (isRunning) {
      const [row] = await db().execute(`select count(*)::int as n from research_job where source_ref = ? and status in ('queued', 'processing')`, [draft.id]);
      peak = Math.max(peak, row.n);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  // result() follows the chain of runs to the last one.
  expect(await handle.result()).toEqual({ status: 'completed' });
  isRunning = false;
  await sampler;
  stack.providerWorld.setLatency(null);
  expect(peak).toBe(2);

  // Pages of 4: three runs, the first two continued as new.
  const runsOf = async () => {
    const runs: string[] = [];
    for await (const execution of stack.temporal.workflow.list({ query: `WorkflowId = '${listRunWorkflowId(draft.id)}'` })) runs.push(execution.status.name);
    return runs.sort();
  };
  // Visibility is eventually consistent: polled.
  await expect.poll(runsOf, { timeout: 10_000 }).toEqual(['COMPLETED', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW']);

  const jobs: Array<{ id: string; source_item: string }> = await db().execute('select id, source_item from research_job where source_ref = ? order by source_item::int', [draft.id]);
  expect(jobs.map((job) => job.source_item)).toEqual(Array.from({ length: 10 }, (_, index) => String(index)));
  const credits = await creditsOf(stack, accountId);
  expect([...credits.consumed].sort()).toEqual(jobs.map((job) => job.id).sort());
  const [list] = await db().execute('select status, finished_at from prospect_list where id = ?', [draft.id]);
  expect(list.status).toBe('completed');
}, 180_000);

it("a list the API committed but never started (it crashed in between) is started by the worker's relay, once", async () => {
  const accountId = await stack.createAccount('starter');
  await stack.createKey(accountId);
  const account = await stack.orm.em.fork().findOneOrFail(Account, accountId);
  const emails = stack.providerWorld.world.samplePeople({}, 13).slice(10).map((person) => person.email);
  const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: emails.join('\n') }, new Date());
  // The API's transaction committed; the process died before starting the workflow.
  await startList(stack.orm.em.fork(), accountId, draft.id, {}, new Date(Date.now() - 10_000));
  const relay = { orm: stack.orm, temporal: stack.temporal, taskQueue: stack.config.temporal.taskQueue, deadlineMs: stack.config.researchDeadlineMs, clock: () => new Date(), logger: createLogger('test', 'silent') };
  expect(await startWaitingListRuns(relay)).toBe(1);
  // Marked started: a second pass (or a second worker's relay) leaves it alone.
  expect(await startWaitingListRuns(relay)).toBe(0);
  expect(await stack.temporal.workflow.getHandle(listRunWorkflowId(draft.id)).result()).toEqual({ status: 'completed' });
  const jobs = await db().execute('select id from research_job where source_ref = ?', [draft.id]);
  expect(jobs).toHaveLength(3);
  expect((await creditsOf(stack, accountId)).consumed).toHaveLength(3);
}, 120_000);

it('an account being deleted takes no further row: the list ends cancelled, nothing charged', async () => {
  const accountId = await stack.createAccount('growth');
  await stack.createKey(accountId);
  const account = await stack.orm.em.fork().findOneOrFail(Account, accountId);
  const emails = stack.providerWorld.world.samplePeople({}, 16).slice(13).map((person) => person.email);
  const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: emails.join('\n') }, new Date());
  await startList(stack.orm.em.fork(), accountId, draft.id, {}, new Date());
  await db().execute('update account set deletion_requested_at = now() where id = ?', [accountId]);
  const input: ListRunInput = { listId: draft.id, researchTaskQueue: stack.config.temporal.taskQueue, deadlineMs: stack.config.researchDeadlineMs };
  const handle = await stack.temporal.workflow.start(LIST_RUN_WORKFLOW_TYPE, { workflowId: listRunWorkflowId(draft.id), taskQueue: stack.config.temporal.taskQueue, args: [input] });
  expect(await handle.result()).toEqual({ status: 'cancelled' });
  const [list] = await db().execute('select status, stopped_reason from prospect_list where id = ?', [draft.id]);
  expect(list).toEqual({ status: 'cancelled', stopped_reason: 'account_deleted' });
  expect(await db().execute('select id from research_job where source_ref = ?', [draft.id])).toHaveLength(0);
  expect((await creditsOf(stack, accountId)).used).toBe(0);
}, 60_000);
