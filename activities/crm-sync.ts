// The activities of crmSyncWorkflow: thin wrappers of services/crm/sync.ts
// that turn the CRM's answers into Temporal's terms. A dead grant or a
// refusal is final (no retry helps); "unavailable" (429, 5xx, the network,
// an allowance spent) is retried after the wait the CRM asked for.
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm.ts';
import type { CandidateVerdict } from '../domain/crm/crm.ts';
import { CRM_FAILURE_TYPES, type CandidateSearch, type ContactWriteItem, type ContactWriteOutcome, type CrmRunPlan, type CrmSyncInput } from '../domain/crm/sync-contract.ts';
import type { CrmConfig } from '../integrations/crm/config.ts';
import { CrmAuthRevoked, CrmConfigRejected, CrmRejected, CrmUnavailable, type CrmHoldOff } from '../integrations/crm/errors.ts';
import type { CrmProviderKits } from '../integrations/crm/providers.ts';
import type { CrmTokens } from '../services/crm/connections.ts';
import type { PortalBudgets } from '../services/crm/portal-budget.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import { researchTaskQueueOfCrm } from '../services/crm/schedules.ts';
import { writeContactsBatch } from '../services/crm/batch-write.ts';
import { findAndClaimCandidates } from '../services/crm/candidates.ts';
import {
  ensureCrmProperties, finishCrmRun, finishNotRun, markContactFailed, postContactChat, recordRunWaiting, researchData, startCrmRun, writeResearchedContact,
  type ContactWriteResult, type CrmSyncDeps,
} from '../services/crm/sync.ts';
import { nudgeMailOutbox } from '../services/mail/outbox.ts';
import { endOrphanedCrmRun, takeCrmRunTurn } from '../services/crm/run-turns.ts';
import { CRM_RUN_WAITING_TYPE, DEFAULT_CRM_RUNS_PER_ACCOUNT } from '../domain/crm/run-cap.ts';
import { WorkflowNotFoundError } from '@temporalio/client';
import { withHeartbeat } from './heartbeat.ts';

export interface CrmActivityDeps {
  orm: Orm;
  clock: () => Date;
  config: CrmConfig;
  kits: CrmProviderKits;
  tokens: CrmTokens;
  budgets: PortalBudgets;
  publicUrl: string;
  temporal: Client;
  retry?: Record<string, number>;
  logger?: Logger;
  /** CRM runs of one account running at once (CRM_RUNS_PER_ACCOUNT). */
  runsPerAccount?: number;
}

/** The CRM's answers as Temporal failures; an allowance's hold-off is first said on the run (`onHoldOff`). */
async function translated<T>(run: () => Promise<T>, onHoldOff?: (holdOff: CrmHoldOff) => Promise<void>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CrmUnavailable && error.holdOff && onHoldOff) await onHoldOff(error.holdOff);
    if (error instanceof CrmAuthRevoked) throw ApplicationFailure.create({ type: CRM_FAILURE_TYPES.authRevoked, message: error.message, nonRetryable: true });
    if (error instanceof CrmConfigRejected) throw ApplicationFailure.create({ type: CRM_FAILURE_TYPES.configRejected, message: error.message, nonRetryable: true });
    if (error instanceof CrmRejected) throw ApplicationFailure.create({ type: CRM_FAILURE_TYPES.rejected, message: error.message, nonRetryable: true });
    if (error instanceof CrmUnavailable) {
      throw ApplicationFailure.create({ type: CRM_FAILURE_TYPES.unavailable, message: error.message, nextRetryDelay: Math.max(error.retryAfterMs, 500) });
    }
    throw error;
  }
}

/**
 * Every CRM activity heartbeats while it runs (workflows/activity-profiles.ts
 * `crmHubSpot`, `crmDatabase`): a worker that dies mid-write is noticed
 * within the heartbeat timeout, and the write tried again on another worker,
 * instead of after the start-to-close timeout. Waiting for HubSpot's budget
 * or a chat webhook's turn is running too.
 */
export function createCrmActivities(deps: CrmActivityDeps) {
  const sync: CrmSyncDeps = {
    em: () => deps.orm.em.fork(), clock: deps.clock, config: deps.config, kits: deps.kits, tokens: deps.tokens, budgets: deps.budgets, publicUrl: deps.publicUrl, retry: deps.retry,
  };
  const logger = deps.logger ?? createLogger('crm');
  // The digest is committed: send it now rather than at the outbox Schedule's next minute (best effort).
  const nudgeDigest = () => nudgeMailOutbox(deps.temporal, researchTaskQueueOfCrm(Context.current().info.taskQueue), logger);
  // The run sits waiting for the CRM's allowance: the CRM page says why and until when.
  const waiting = (plan: CrmRunPlan) => (holdOff: CrmHoldOff) => recordRunWaiting(sync, plan.runId, holdOff);
  return {
    crmStartRun: (input: CrmSyncInput & { runId: string; queueForTurn?: boolean }): Promise<CrmRunPlan> => withHeartbeat(() => startCrmRun(sync, input)),
    crmEnsureProperties: (plan: CrmRunPlan): Promise<void> => withHeartbeat(() => translated(() => ensureCrmProperties(sync, plan), waiting(plan))),
    crmFindCandidates: (plan: CrmRunPlan): Promise<CandidateSearch> => withHeartbeat(() => translated(() => findAndClaimCandidates(sync, plan), waiting(plan))),
    crmWriteContact: (plan: CrmRunPlan, contact: CandidateVerdict, researchId: string): Promise<ContactWriteResult> =>
      withHeartbeat(() => translated(() => writeResearchedContact(sync, plan, contact, researchId, { isRetry: Context.current().info.attempt > 1 }), waiting(plan))),
    crmMarkContactFailed: (plan: CrmRunPlan, contact: CandidateVerdict, input: { researchId: string | null; error: string; outcome: 'failed' | 'not_researched' }): Promise<void> =>
      withHeartbeat(() => translated(() => markContactFailed(sync, plan, contact, input), waiting(plan))),
    /** A flush of ended contacts (docs/crm.md#batch-writes); a retry reads back what an earlier try did before writing again. */
    crmWriteBatch: (plan: CrmRunPlan, items: ContactWriteItem[]): Promise<ContactWriteOutcome[]> =>
      withHeartbeat(() => translated(() => writeContactsBatch(sync, plan, items, { isRetry: Context.current().info.attempt > 1 }), waiting(plan))),
    /** A researched contact's chat follow-up, once, in the webhook's turn. */
    crmPostContactChat: (plan: CrmRunPlan, contact: CandidateVerdict, researchId: string): Promise<ContactWriteResult['chat']> =>
      withHeartbeat(async () => {
        const data = await researchData(sync.em(), researchId);
        return data ? postContactChat(sync, plan, contact, data) : 'none';
      }),
    crmFinishRun: (plan: CrmRunPlan, input: { status: 'completed' | 'credits_exhausted' | 'failed'; reason: string | null; creditsUsed: number }) =>
      withHeartbeat(() => finishCrmRun(sync, plan, input, { onDigestQueued: nudgeDigest })),
    crmFinishNotRun: (runId: string, reason: string): Promise<void> => withHeartbeat(() => finishNotRun(sync, runId, reason)),
    /**
     * A queued run's turn (services/crm/run-turns.ts): done once it is
     * `running`; until then it fails, with its place, and Temporal asks again
     * (workflows/activity-profiles.ts `crmRunTurn`). A run holding a turn
     * whose workflow no longer runs gives it up first.
     */
    crmTakeRunTurn: async (plan: CrmRunPlan): Promise<void> => {
      const accountId = plan.settings!.accountId;
      const turn = await takeCrmRunTurn(sync.em(), { runId: plan.runId, accountId, cap: deps.runsPerAccount ?? DEFAULT_CRM_RUNS_PER_ACCOUNT, now: deps.clock() });
      if (turn.started) return;
      let isFreed = false;
      for (const runId of turn.runningIds) {
        const isRunning = await deps.temporal.workflow.getHandle(runId).describe().then(
          (described) => described.status.name === 'RUNNING',
          (error: unknown) => (error instanceof WorkflowNotFoundError ? false : true),
        );
        if (!isRunning) {
          await endOrphanedCrmRun(sync.em(), runId, deps.clock());
          isFreed = true;
        }
      }
      if (isFreed && (await takeCrmRunTurn(sync.em(), { runId: plan.runId, accountId, cap: deps.runsPerAccount ?? DEFAULT_CRM_RUNS_PER_ACCOUNT, now: deps.clock() })).started) return;
      throw ApplicationFailure.create({ type: CRM_RUN_WAITING_TYPE, message: `queued: place ${turn.place} among the account's CRM runs waiting their turn` });
    },
  };
}

export type CrmActivities = ReturnType<typeof createCrmActivities>;
