import {
  ParentClosePolicy, log, patched, proxyActivities, startChild, type ActivityOptions,
} from '@temporalio/workflow';
import { SearchAttributeType, WorkflowExecutionAlreadyStartedError, defineSearchAttributeKey } from '@temporalio/common';
import type { FanoutActivities } from '../activities/research-fanout.ts';
import type {
  FanoutItem, FanoutItemOutcome, FanoutJobRecord, FanoutOptions, FanoutOwner, FanoutResult,
} from '../domain/research/fanout.ts';
import type { researchWorkflow } from './research-workflow.ts';
import { loggedError } from '../domain/logged-error.ts';
import { fairnessKeyOf } from '../domain/research/fairness.ts';

/**
 * The fan-out's database step: quick, and retried through a PostgreSQL
 * restart for minutes (an item's credit and job are one transaction, found
 * again on a retry, so retrying never charges twice).
 */
const fanoutStep: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 30, nonRetryableErrorTypes: [] },
};

const ACCOUNT_ATTRIBUTE = defineSearchAttributeKey('ResearchAccountId', SearchAttributeType.KEYWORD);
/**
 * Runs recorded before children carried their account's fairness key
 * started them without it; they replay so (a new child's start differs).
 */
export const CHILD_FAIRNESS_KEY_PATCH = 'research-child-fairness-key';
/** As lib/research-workflow-client.ts: only a last resort, the workflow keeps its deadline itself. */
const LAST_RESORT_MARGIN_MS = 60_000;

export interface FanoutControl {
  /** Asked before each item is taken: true stops taking items (a list's Cancel). */
  shouldStop(): boolean;
  /** Told as each item ends (progress); optional. */
  onItemEnd?(outcome: FanoutItemOutcome): void;
}

/**
 * Researches the items with at most `inFlight` of them at once
 * (docs/architecture.md#many-jobs-at-once-crm-runs-and-lists; Temporal's batch sliding-window sample): per item, one
 * step records its research job and takes its credit (source `list` or `crm`,
 * the same rules as `POST /research`), then the job runs as this workflow's
 * child `researchWorkflow` (workflow id = research id) on the research task
 * queue, beside the API's own jobs. Used by the list run and the CRM run.
 *
 * - An item's job is named by (owner ref, item key) in the database, so a
 *   retried step or a replayed parent never records or charges it twice.
 * - No credit left: no further item is taken; the rest are `not_started`.
 * - `shouldStop()` (a Cancel): items not yet taken are `not_started`, never
 *   charged; items in flight run to their end (they are paid for).
 * - Children report their end value only ('completed' | 'failed'), so the
 *   parent's history grows by a few events per item, not by the research.
 *   Children are abandoned, not terminated, if the parent closes: a taken
 *   credit always gets its job run (or refunded by the job's own rules).
 */
export async function researchFanout(owner: FanoutOwner, items: readonly FanoutItem[], options: FanoutOptions, control: FanoutControl): Promise<FanoutResult> {
  const steps = proxyActivities<FanoutActivities>({ ...fanoutStep, taskQueue: options.researchTaskQueue });
  const ended = new Map<string, FanoutItemOutcome>();
  let next = 0;
  let creditsUsed = 0;
  let isOutOfCredits = false;
  let isStopped = false;

  async function research(item: FanoutItem, record: Extract<FanoutJobRecord, { outcome: 'recorded' }>): Promise<FanoutItemOutcome> {
    const { researchId } = record;
    try {
      const child = await startChild<typeof researchWorkflow>('researchWorkflow', {
        workflowId: researchId,
        taskQueue: options.researchTaskQueue,
        args: [{ researchId, submittedAtMs: record.submittedAtMs, deadlineMs: options.deadlineMs }],
        parentClosePolicy: ParentClosePolicy.ABANDON,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowExecutionTimeout: `${Math.ceil((options.deadlineMs * 2 + LAST_RESORT_MARGIN_MS) / 1000)}s`,
        typedSearchAttributes: [{ key: ACCOUNT_ATTRIBUTE, value: String(owner.accountId) }],
        // The account's fairness key, also when the parent has none (a CRM run
        // its Schedule started): Temporal then takes this account's rows in
        // turns with other accounts' work. Priority key and weight are the
        // parent's (unset fields inherit).
        ...(patched(CHILD_FAIRNESS_KEY_PATCH) ? { priority: { fairnessKey: fairnessKeyOf(owner.accountId) } } : {}),
      });
      const result = await child.result();
      return { key: item.key, outcome: result, researchId, error: result === 'failed' ? 'research failed' : null };
    } catch (error) {
      // Started already (a parent run before a reset) or ended oddly (terminated,
      // timed out): the job's row says how it ended; it keeps its own refund rules.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) log.warn('research child ended without a result', { researchId, error: loggedError(error) });
      const job = await steps.fanoutJobEnd(researchId);
      const outcome = job.status === 'completed' ? 'completed' : 'failed';
      return { key: item.key, outcome, researchId, error: outcome === 'failed' ? (job.error ?? 'research failed') : null };
    }
  }

  async function lane(): Promise<void> {
    while (next < items.length && !isOutOfCredits && !isStopped) {
      if (control.shouldStop()) {
        isStopped = true;
        return;
      }
      const item = items[next++]!;
      const record = await steps.fanoutRecordJob(owner, item);
      if (record.outcome !== 'recorded') {
        if (record.outcome === 'out_of_credits') isOutOfCredits = true;
        else isStopped = true;
        ended.set(item.key, notStarted(item));
        return;
      }
      creditsUsed += 1;
      const outcome = await research(item, record);
      ended.set(item.key, outcome);
      control.onItemEnd?.(outcome);
    }
  }

  await Promise.all(Array.from({ length: Math.min(Math.max(1, options.inFlight), items.length) }, lane));
  const outcomes = items.map((item) => ended.get(item.key) ?? notStarted(item));
  return { outcomes, creditsUsed, isOutOfCredits, isStopped };
}

const notStarted = (item: FanoutItem): FanoutItemOutcome => ({ key: item.key, outcome: 'not_started', researchId: null, error: null });
