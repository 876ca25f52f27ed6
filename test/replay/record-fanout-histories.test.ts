// Records the histories of the runs built on the shared research fan-out
// (a list run, a CRM sync run) into test/histories/fanout/, which
// replay-fanout-histories.test.ts replays against the current workflow code.
// Skipped unless asked for:
//
//   RECORD_HISTORIES=1 node_modules/.bin/vitest run test/replay/record-fanout-histories.test.ts
//
// Re-record only on purpose, as test/replay/record-histories.test.ts says: the
// committed files stand for runs in flight that the code must keep replaying.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../db/entities/index.ts';
import { CRM_SYNC_WORKFLOW_TYPE } from '../../domain/crm/crm.ts';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import { LIST_RUN_WORKFLOW_TYPE, listRunWorkflowId, type ListRunInput } from '../../domain/lists/lists.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { crmTaskQueue } from '../../services/crm/schedules.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { createListDraft, requestListCancel, startList } from '../../services/lists/lists.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

export const FANOUT_HISTORIES_DIR = join(import.meta.dirname, '..', 'histories', 'fanout');

function save(name: string, history: History): void {
  mkdirSync(FANOUT_HISTORIES_DIR, { recursive: true });
  writeFileSync(join(FANOUT_HISTORIES_DIR, `${name}.json`), `${historyToJSON(history)}\n`);
}

const eventsOf = (history: History) => (history.events ?? []).map((event) => Object.keys(event).find((key) => key.endsWith('EventAttributes')) ?? '');

describe.runIf(process.env.RECORD_HISTORIES === '1')('record fan-out histories', () => {
  let stack: TestStack;
  let crm: CrmFixture;
  let crmWorker: TestCrmWorker;
  const em = () => stack.orm.em.fork();
  beforeAll(async () => {
    crm = await startCrmFixture({ world: createWorld(), em });
    stack = await startTestStack();
    crmWorker = await startTestCrmWorker(stack, crm);
  }, 180_000);
  afterAll(async () => {
    await crmWorker?.stop();
    await crm?.stop();
    await stack?.stop();
  });

  async function startedList(rows: number, offset: number): Promise<{ listId: string; accountId: number }> {
    const accountId = await stack.createAccount('growth');
    await stack.createKey(accountId);
    const account = await em().findOneOrFail(Account, accountId);
    const emails = stack.providerWorld.world.samplePeople({}, offset + rows).slice(offset).map((person) => person.email);
    const draft = await createListDraft(em(), account, { pasted: emails.join('\n') }, new Date());
    await startList(em(), accountId, draft.id, {}, new Date());
    return { listId: draft.id, accountId };
  }

  const runList = (listId: string, extra: Partial<ListRunInput> = {}) => stack.temporal.workflow.start(LIST_RUN_WORKFLOW_TYPE, {
    workflowId: listRunWorkflowId(listId),
    taskQueue: stack.config.temporal.taskQueue,
    args: [{ listId, researchTaskQueue: stack.config.temporal.taskQueue, deadlineMs: stack.config.researchDeadlineMs, inFlight: 2, ...extra } satisfies ListRunInput],
  });

  it('list-run-completed: three rows, two in flight', async () => {
    const { listId } = await startedList(3, 0);
    const handle = await runList(listId);
    expect(await handle.result()).toEqual({ status: 'completed' });
    const history = await handle.fetchHistory();
    expect(eventsOf(history).filter((type) => type === 'startChildWorkflowExecutionInitiatedEventAttributes')).toHaveLength(3);
    save('list-run-completed', history);
  }, 120_000);

  it('list-run-continued: the first page of a list of five in pages of two, continued as new', async () => {
    const { listId } = await startedList(5, 10);
    const handle = await runList(listId, { rowsPerPage: 2 });
    expect(await handle.result()).toEqual({ status: 'completed' });
    // The first run of the chain: two rows, then continue-as-new.
    const first = await stack.temporal.workflow.getHandle(listRunWorkflowId(listId), handle.firstExecutionRunId).fetchHistory();
    expect(eventsOf(first).at(-1)).toBe('workflowExecutionContinuedAsNewEventAttributes');
    save('list-run-continued', first);
  }, 120_000);

  it('list-run-cancelled: a Cancel before any row is taken; nothing started', async () => {
    const { listId, accountId } = await startedList(3, 20);
    await requestListCancel(em(), accountId, listId, new Date());
    const handle = await runList(listId);
    expect(await handle.result()).toEqual({ status: 'cancelled' });
    save('list-run-cancelled', await handle.fetchHistory());
  }, 120_000);

  it('list-run-out-of-credits: one credit left for three rows', async () => {
    const { listId, accountId } = await startedList(3, 30);
    await em().execute('update account set credits_used = credit_limit - 1 where id = ?', [accountId]);
    const handle = await runList(listId);
    expect(await handle.result()).toEqual({ status: 'stopped_no_credits' });
    save('list-run-out-of-credits', await handle.fetchHistory());
  }, 120_000);

  /** A Growth account with a product connected to the HubSpot stand-in, and one manual sync run of it, ended. */
  async function runRecordedCrmSync(options: { researchLimit: number; chatHook: string; workflowIdSuffix: string }) {
    const accountId = await stack.createAccount('growth');
    await stack.createKey(accountId);
    const [{ id: productId }] = await em().execute('select id from product_context where account_id = ?', [accountId]);
    await crm.connect(em(), accountId);
    await saveCrmSettings(em(), accountId, productId, {
      cadence: 'daily', hourUtc: 8, scoreProperty: 'hubspotscore', minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: options.researchLimit,
      chatWebhookUrl: `${crm.chat.url}/services/T1/B1/${options.chatHook}`, digestEnabled: true, digestEmail: null, active: true,
    }, new Date());
    const handle = await stack.temporal.workflow.start(CRM_SYNC_WORKFLOW_TYPE, {
      workflowId: `crm-run-${productId}-${options.workflowIdSuffix}`,
      taskQueue: crmTaskQueue(stack.config.temporal.taskQueue),
      args: [{ productId, trigger: 'manual' }],
    });
    return { handle, result: (await handle.result()) as CrmSyncResult };
  }

  it('crm-sync-completed: a sync run of three contacts through the fan-out', async () => {
    const { handle, result } = await runRecordedCrmSync({ researchLimit: 3, chatHook: 'replay', workflowIdSuffix: 'recorded' });
    expect(result).toMatchObject({ status: 'completed', counts: { creditsUsed: 3 } });
    save('crm-sync-completed', await handle.fetchHistory());
  }, 180_000);

  it('crm-sync-written-as-researched: a sync run whose contacts are written back as each one\'s research ends (patch crm-write-as-researched)', async () => {
    const { handle, result } = await runRecordedCrmSync({ researchLimit: 4, chatHook: 'replay-overlap', workflowIdSuffix: 'recorded-overlap' });
    expect(result).toMatchObject({ status: 'completed', counts: { creditsUsed: 4 } });
    const history = await handle.fetchHistory();
    // The patch's marker: this history stands for runs of the new shape.
    expect(eventsOf(history)).toContain('markerRecordedEventAttributes');
    save('crm-sync-written-as-researched', history);
  }, 180_000);

  it('crm-sync-batch-writes: a sync run whose contacts are written in batches as they end, chat follow-ups behind (patch crm-batch-writes)', async () => {
    const { handle, result } = await runRecordedCrmSync({ researchLimit: 4, chatHook: 'replay-batch', workflowIdSuffix: 'recorded-batch' });
    expect(result).toMatchObject({ status: 'completed', counts: { creditsUsed: 4 } });
    const history = await handle.fetchHistory();
    // Both patches' markers, the batch write and the chat follow-ups: this history stands for runs of the batched shape.
    expect(eventsOf(history).filter((type) => type === 'markerRecordedEventAttributes')).toHaveLength(2);
    const activities = (history.events ?? []).map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(activities).toContain('crmWriteBatch');
    expect(activities).not.toContain('crmWriteContact');
    expect(activities.filter((name) => name === 'crmPostContactChat')).toHaveLength(result.counts.researched);
    save('crm-sync-batch-writes', history);
  }, 180_000);
});
