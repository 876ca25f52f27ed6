import { RESEARCH_PRIORITY_KEY } from '../../domain/research/fanout.ts';
import { accountFairness, type FairnessWeights } from '../../domain/research/fairness.ts';
import type { PlanName } from '../../domain/billing/plans.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm.ts';
import { LIST_RUN_WORKFLOW_TYPE, listRunWorkflowId, type ListRunInput } from '../../domain/lists/lists.ts';
import type { FanoutItem, FanoutOwner } from '../../domain/research/fanout.ts';
import type { ResearchRequest } from '../../domain/research/request.ts';
import type { Logger } from '../../lib/logger.ts';
import { lockAccount } from '../billing/credits.ts';
import { promoteAllQueuedLists, promoteQueuedLists } from './queue.ts';

// The list run's side: its workflow started durably, and the
// steps of workflows/list-run-workflow.ts.

export interface ListRunStarts {
  temporal: Client;
  /** The research task queue: the list run, its rows' steps and their research all run there. */
  taskQueue: string;
  deadlineMs: number;
  /** Each plan's fairness weight (config.fairnessWeights); unset: equal. */
  fairnessWeights?: FairnessWeights;
}

const START_TIMEOUT_MS = 5_000;

/**
 * Starts a running list's workflow (id `list-run-<list id>`) and marks the
 * intent carried out; one that exists already counts as started. Called right
 * after the start's commit, and again by `startWaitingListRuns` for any list
 * whose start a crash or an unreachable Temporal missed.
 */
export async function startListRunWorkflow(starts: ListRunStarts, em: EntityManager, listId: string, now: Date): Promise<void> {
  const input: ListRunInput = { listId, researchTaskQueue: starts.taskQueue, deadlineMs: starts.deadlineMs };
  const [owner]: Array<{ account_id: number; plan: PlanName }> = await em.execute(
    'select l.account_id, a.plan from prospect_list l join account a on a.id = l.account_id where l.id = ?',
    [listId],
  );
  // A list deleted meanwhile: its run finds no rows and ends at once.
  const fairness = owner ? accountFairness(owner.account_id, owner.plan, starts.fairnessWeights) : {};
  try {
    await starts.temporal.connection.withDeadline(Date.now() + START_TIMEOUT_MS, () => starts.temporal.workflow.start(LIST_RUN_WORKFLOW_TYPE, {
      workflowId: listRunWorkflowId(listId),
      taskQueue: starts.taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Its rows' research inherits this: behind callers' own jobs, and in
      // turns with other accounts' rows rather than after all of this list's.
      priority: { priorityKey: RESEARCH_PRIORITY_KEY.list, ...fairness },
    }));
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await em.execute('update prospect_list set workflow_started_at = ? where id = ? and workflow_started_at is null', [now, listId]);
}

/**
 * The lists' start relay: queued lists whose account has room become running
 * (services/lists/queue.ts), then every running list whose workflow start was
 * not recorded gets it started now: `graceMs` after it started when the API
 * starts it itself, at once when it was promoted from the queue (nobody else
 * starts those). Run by the worker every few seconds and at start-up;
 * starting twice is harmless (same id).
 */
export async function startWaitingListRuns(starts: ListRunStarts & { orm: Orm; clock: () => Date; logger: Logger }, graceMs = 5_000): Promise<number> {
  const em = starts.orm.em.fork();
  const now = starts.clock();
  await promoteAllQueuedLists(em, now);
  const waiting: Array<{ id: string }> = await em.execute(
    `select id from prospect_list where workflow_started_at is null and status in ('running', 'cancelling') and (started_at < ? or queued_at is not null) order by started_at limit 50`,
    [new Date(now.getTime() - graceMs)],
  );
  let started = 0;
  for (const { id } of waiting) {
    try {
      await startListRunWorkflow(starts, em, id, now);
      started += 1;
    } catch (error) {
      starts.logger.warn({ err: error, listId: id }, 'list run not started yet; retrying');
      break;
    }
  }
  if (started > 0) starts.logger.info({ started }, 'started the runs of lists whose start was missed');
  return started;
}

/** Runs `startWaitingListRuns` every `intervalMs` until stopped. */
export function startListRunRelay(options: ListRunStarts & { orm: Orm; clock: () => Date; logger: Logger; intervalMs?: number }): { stop(): Promise<void> } {
  let timer: NodeJS.Timeout | null = null;
  let pass: Promise<unknown> | null = null;
  let isStopped = false;
  const loop = () => {
    pass = startWaitingListRuns(options).catch((error: unknown) => options.logger.warn({ err: error }, 'list run relay: pass failed')).finally(() => {
      pass = null;
      if (!isStopped) timer = setTimeout(loop, options.intervalMs ?? 3_000);
    });
  };
  loop();
  return {
    async stop() {
      isStopped = true;
      if (timer) clearTimeout(timer);
      await pass;
    },
  };
}

export interface ListRunPage {
  /** Null when the list is not running (cancelled meanwhile, or gone). */
  owner: FanoutOwner | null;
  items: FanoutItem[];
}

/** The next rows to research, after `afterPosition`, with who pays for them. */
export async function listRunPage(em: EntityManager, input: { listId: string; afterPosition: number; limit: number }): Promise<ListRunPage> {
  const [list]: Array<{ account_id: number; api_key_id: number | null; product_id: number | null; status: string }> = await em.execute(
    'select account_id, api_key_id, product_id, status from prospect_list where id = ?',
    [input.listId],
  );
  if (!list || list.status !== 'running' || list.product_id === null) return { owner: null, items: [] };
  const rows: Array<{ position: number; request: ResearchRequest }> = await em.execute(
    `select position, request from prospect_list_row where list_id = ? and position > ? and status in ('pending', 'started') order by position limit ?`,
    [input.listId, input.afterPosition, input.limit],
  );
  return {
    owner: { source: 'list', ref: input.listId, accountId: list.account_id, productId: list.product_id, apiKeyId: list.api_key_id },
    items: rows.map((row) => ({ key: String(row.position), request: row.request })),
  };
}

/**
 * Ends the list: rows never started are not charged, and the list is
 * `cancelled` (a Cancel came, or the account is being deleted),
 * `stopped_no_credits` or `completed`. Safe to repeat.
 */
export async function listRunFinish(em: EntityManager, input: { listId: string; isOutOfCredits: boolean }, now: Date): Promise<{ status: string }> {
  return em.transactional(async (tx) => {
    const [owner]: Array<{ account_id: number }> = await tx.execute('select account_id from prospect_list where id = ?', [input.listId]);
    if (!owner) return { status: 'gone' };
    // The account's lock first, as a Cancel and a start take it, then the list's.
    await lockAccount(tx, owner.account_id, now);
    const [list]: Array<{ status: string; is_account_deleted: boolean }> = await tx.execute(
      `select l.status, a.deletion_requested_at is not null as is_account_deleted
       from prospect_list l join account a on a.id = l.account_id where l.id = ? for update of l`,
      [input.listId],
    );
    if (!list) return { status: 'gone' };
    if (list.status !== 'running' && list.status !== 'cancelling') return { status: list.status };
    await tx.execute(`update prospect_list_row set status = 'not_charged' where list_id = ? and status = 'pending'`, [input.listId]);
    const isCancelled = list.status === 'cancelling' || list.is_account_deleted;
    const status = isCancelled ? 'cancelled' : input.isOutOfCredits ? 'stopped_no_credits' : 'completed';
    const reason = list.is_account_deleted ? 'account_deleted' : status === 'cancelled' ? 'cancelled' : status === 'stopped_no_credits' ? 'credits_exhausted' : null;
    await tx.execute('update prospect_list set status = ?, stopped_reason = ?, finished_at = ? where id = ?', [status, reason, now, input.listId]);
    // The account's next queued list takes the place in the same commit; the list relay starts its workflow.
    await promoteQueuedLists(tx, owner.account_id, now);
    return { status };
  });
}
