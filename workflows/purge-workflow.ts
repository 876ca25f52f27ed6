import { continueAsNew, proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { PurgeStepInput } from '../activities/purge.ts';
import { PURGE_BATCH_SIZE, addPurgeCounts, noPurgeCounts, type PurgeBatch, type PurgeInput, type PurgeReport } from '../domain/retention/retention.ts';

/**
 * One bounded purge step: up to a batch of rows and as many history deletions
 * on the Temporal server. Retried through a database or Temporal restart; a
 * step cut off half-way is finished by its retry (services/retention/purge.ts).
 */
const purgeStep: ActivityOptions = {
  startToCloseTimeout: '5 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [],
  },
};

const activities = proxyActivities<Activities>(purgeStep);

/** Steps in order: deleted accounts last, so their old jobs are already counted as research logs. */
const STEPS: Array<(input: PurgeStepInput) => Promise<PurgeBatch>> = [
  activities.purgeResearchLogs,
  activities.purgeErrorLogs,
  activities.purgeDeletedAccounts,
];

/** About 6 history events per step: a run stays far below Temporal's history limits, then continues as new. */
const STEPS_PER_RUN = 300;

/**
 * The daily purge (docs/operations.md#the-purge), run by a Temporal Schedule
 * (worker/purge-schedule.ts): research logs after 12 months, error logs after
 * 6, and the data of deleted accounts. Every step selects what is still
 * there, so the purge is idempotent; the result counts what this run (with
 * the runs it continued as) deleted.
 */
export async function purgeWorkflow(input: PurgeInput = {}): Promise<PurgeReport> {
  const now = input.now ?? (await activities.readPurgeClock());
  const batchSize = input.batchSize ?? PURGE_BATCH_SIZE;
  const stepsPerRun = input.stepsPerRun ?? STEPS_PER_RUN;
  let deleted = input.carried ?? noPurgeCounts();
  let steps = 0;
  for (const step of STEPS) {
    for (;;) {
      const batch = await step({ now, batchSize });
      deleted = addPurgeCounts(deleted, batch.deleted);
      if (!batch.hasMore) break;
      steps += 1;
      if (steps >= stepsPerRun || workflowInfo().continueAsNewSuggested) {
        // The same "now": cutoffs do not move within one purge.
        return continueAsNew<typeof purgeWorkflow>({ now, batchSize, stepsPerRun, carried: deleted });
      }
    }
  }
  const report = { now, deleted };
  await activities.reportPurge(report);
  return report;
}
