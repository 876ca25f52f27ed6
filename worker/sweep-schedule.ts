import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { SWEEP_INTERVAL, SWEEP_WORKFLOW_TYPE } from '../domain/research-contract.ts';

/** Creates the sweeper's Schedule once per task queue; visible and pausable in the Temporal UI. */
export async function ensureSweepSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: `sweep-stale-jobs-${taskQueue}`,
      spec: { intervals: [{ every: SWEEP_INTERVAL }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: { type: 'startWorkflow', workflowType: SWEEP_WORKFLOW_TYPE, taskQueue, args: [] },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
