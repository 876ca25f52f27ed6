import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createStaleJobActivities, type StaleJobDeps } from '../activities/stale-jobs.ts';
import { SWEEP_WORKFLOW_TYPE } from '../domain/research-contract.ts';

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
 * the Temporal UI. An existing Schedule takes the configured interval and
 * queue, so that RESEARCH_SWEEP_INTERVAL_MS holds after a change too.
 */
export async function ensureSweepSchedule(client: Client, researchTaskQueue: string, intervalMs: number): Promise<void> {
  const scheduleId = `sweep-stale-jobs-${researchTaskQueue}`;
  const taskQueue = sweepTaskQueue(researchTaskQueue);
  const spec = { intervals: [{ every: intervalMs }] };
  const action = { type: 'startWorkflow', workflowType: SWEEP_WORKFLOW_TYPE, taskQueue, args: [] } as const;
  try {
    await client.schedule.create({ scheduleId, spec, policies: { overlap: ScheduleOverlapPolicy.SKIP }, action });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(scheduleId);
    const current = await handle.describe();
    if (current.spec.intervals?.[0]?.every === intervalMs && current.action.taskQueue === taskQueue) return;
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
