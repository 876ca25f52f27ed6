import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { SWEEP_WORKFLOW_TYPE } from '../domain/research-contract.ts';

/**
 * Creates the sweeper's Schedule once per task queue; visible and pausable in
 * the Temporal UI. An existing Schedule takes the configured interval, so that
 * RESEARCH_SWEEP_INTERVAL_MS holds after a change too.
 */
export async function ensureSweepSchedule(client: Client, taskQueue: string, intervalMs: number): Promise<void> {
  const scheduleId = `sweep-stale-jobs-${taskQueue}`;
  const spec = { intervals: [{ every: intervalMs }] };
  try {
    await client.schedule.create({
      scheduleId,
      spec,
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: { type: 'startWorkflow', workflowType: SWEEP_WORKFLOW_TYPE, taskQueue, args: [] },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(scheduleId);
    const current = await handle.describe();
    if (current.spec.intervals?.[0]?.every === intervalMs) return;
    await handle.update((previous) => ({ ...previous, spec }));
  }
}
