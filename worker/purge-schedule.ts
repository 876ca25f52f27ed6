import { ScheduleOverlapPolicy, type Client, type ScheduleDescription } from '@temporalio/client';
import { PURGE_SCHEDULE_TIME_UTC, PURGE_WORKFLOW_TYPE, type PurgeInput } from '../domain/retention/retention.ts';
import { ensureSchedule } from '../lib/temporal-schedules.ts';
import { sweepTaskQueue } from './sweep-schedule.ts';

export const purgeScheduleId = (researchTaskQueue: string) => `purge-${researchTaskQueue}`;

const { hour, minute } = PURGE_SCHEDULE_TIME_UTC;

/** `describe()` returns calendars expanded into ranges: this is the one the purge wants. */
function isDailyAtPurgeTime(description: ScheduleDescription): boolean {
  const calendars = description.spec.calendars ?? [];
  const single = (ranges: Array<{ start: unknown; end: unknown }> | undefined, value: number) =>
    ranges?.length === 1 && ranges[0]!.start === value && ranges[0]!.end === value;
  return calendars.length === 1 && single(calendars[0]!.hour, hour) && single(calendars[0]!.minute, minute) && (description.spec.intervals ?? []).length === 0;
}

/**
 * Creates the daily purge's Schedule (docs/operations.md#the-purge), or brings an
 * existing one to this time and task queue; visible, pausable and
 * triggerable in the Temporal UI and CLI. The purge runs on the housekeeping
 * task queue (the sweeper's), whose worker holds its activities; the Schedule
 * keeps its id from the research queue it serves.
 */
export async function ensurePurgeSchedule(client: Client, researchTaskQueue: string): Promise<void> {
  const scheduleId = purgeScheduleId(researchTaskQueue);
  const taskQueue = sweepTaskQueue(researchTaskQueue);
  const args: [PurgeInput] = [{}];
  await ensureSchedule(client, {
    scheduleId,
    spec: { calendars: [{ hour, minute, comment: 'daily purge' }] },
    action: { type: 'startWorkflow', workflowType: PURGE_WORKFLOW_TYPE, workflowId: scheduleId, taskQueue, args },
    // A purge still running when the next is due is left to finish; after an outage, one late run, not a burst.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 day' },
    isCurrent: (current) =>
      isDailyAtPurgeTime(current) &&
      current.action.type === 'startWorkflow' &&
      current.action.workflowType === PURGE_WORKFLOW_TYPE &&
      current.action.taskQueue === taskQueue,
  });
}
