import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createStaleJobActivities, type StaleJobDeps } from '../activities/stale-jobs.ts';
import { SearchAttributeType, defineSearchAttributeKey, type TypedSearchAttributes, type Workflow } from '@temporalio/common';
import { MAINTENANCE_DIVISION, SWEEP_WORKFLOW_TYPE } from '../domain/research-contract.ts';

/** Built into every Temporal server; default list queries leave its values out. */
const DIVISION = defineSearchAttributeKey('TemporalNamespaceDivision', SearchAttributeType.KEYWORD);

/**
 * The sweeper's own task queue. On the research queue a sweep waited behind
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
  const scheduleId = `sweep-stale-jobs-${researchTaskQueue}`;
  const taskQueue = sweepTaskQueue(researchTaskQueue);
  const spec = { intervals: [{ every: intervalMs }] };
  const action: ScheduleOptionsStartWorkflowAction<Workflow> = {
    type: 'startWorkflow',
    workflowType: SWEEP_WORKFLOW_TYPE,
    taskQueue,
    args: [],
    typedSearchAttributes: [{ key: DIVISION, value: MAINTENANCE_DIVISION }],
  };
  try {
    await client.schedule.create({ scheduleId, spec, policies: { overlap: ScheduleOverlapPolicy.SKIP }, action });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(scheduleId);
    const current = await handle.describe();
    const division = current.action.type === 'startWorkflow' ? (current.action.typedSearchAttributes as TypedSearchAttributes | undefined)?.get(DIVISION) : undefined;
    if (current.spec.intervals?.[0]?.every === intervalMs && current.action.taskQueue === taskQueue && division === MAINTENANCE_DIVISION) return;
    await handle.update((previous) => ({ ...previous, spec, action }));
  }
}

/** A small worker of its own for the sweep, beside the research worker on the same connection. */
export async function createSweepWorker(options: {
  connection: NativeConnection;
  namespace: string;
  researchTaskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  deps: StaleJobDeps;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: sweepTaskQueue(options.researchTaskQueue),
    workflowBundle: options.workflowBundle,
    activities: createStaleJobActivities(options.deps),
    maxConcurrentWorkflowTaskExecutions: 2,
    maxConcurrentActivityTaskExecutions: 2,
    maxCachedWorkflows: 10,
    shutdownGraceTime: '10 seconds',
  });
}
