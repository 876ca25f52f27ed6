import { ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createPurgeActivities, type PurgeDeps } from '../activities/purge.ts';
import { createStaleJobActivities, type StaleJobDeps } from '../activities/stale-jobs.ts';
import { MAINTENANCE_DIVISION, SWEEP_WORKFLOW_TYPE } from '../domain/research/contract.ts';
import { DIVISION, divisionOf, ensureSchedule } from '../lib/temporal-schedules.ts';
import { createMaintenanceWorker } from './maintenance-worker.ts';
import type { WorkerVersioning } from './versioning.ts';

/**
 * The housekeeping task queue of the sweeper and the purge. On the research queue a sweep waited behind
 * every backlogged research task (97 s with 500 jobs in flight, `npm run
 * chaos`), starved by the very overload it is the backstop for.
 */
export function sweepTaskQueue(researchTaskQueue: string): string {
  return `${researchTaskQueue}-sweeper`;
}

/**
 * Creates the sweeper's Schedule once per task queue; visible and pausable in
 * the Temporal UI (Schedules). Its runs are kept out of the default workflow
 * list (MAINTENANCE_DIVISION). An existing Schedule takes the configured
 * interval, queue and division, so that RESEARCH_SWEEP_INTERVAL_MS holds after
 * a change too.
 */
export async function ensureSweepSchedule(client: Client, researchTaskQueue: string, intervalMs: number): Promise<void> {
  const taskQueue = sweepTaskQueue(researchTaskQueue);
  const action: ScheduleOptionsStartWorkflowAction<Workflow> = {
    type: 'startWorkflow',
    workflowType: SWEEP_WORKFLOW_TYPE,
    taskQueue,
    args: [],
    typedSearchAttributes: [{ key: DIVISION, value: MAINTENANCE_DIVISION }],
  };
  await ensureSchedule(client, {
    scheduleId: `sweep-stale-jobs-${researchTaskQueue}`,
    spec: { intervals: [{ every: intervalMs }] },
    action,
    policies: { overlap: ScheduleOverlapPolicy.SKIP },
    isCurrent: (current) =>
      current.spec.intervals?.[0]?.every === intervalMs && current.action.taskQueue === taskQueue && divisionOf(current) === MAINTENANCE_DIVISION,
  });
}

export function createSweepWorker(options: {
  connection: NativeConnection;
  namespace: string;
  researchTaskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  versioning?: WorkerVersioning;
  deps: StaleJobDeps & PurgeDeps;
}): Promise<Worker> {
  return createMaintenanceWorker({
    ...options,
    taskQueue: sweepTaskQueue(options.researchTaskQueue),
    // The daily purge runs here too: housekeeping, never behind a research backlog.
    activities: { ...createStaleJobActivities(options.deps), ...createPurgeActivities(options.deps) },
    concurrency: 2,
  });
}
