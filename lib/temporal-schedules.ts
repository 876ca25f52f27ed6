import { ScheduleAlreadyRunning, type Client, type ScheduleDescription, type ScheduleOptions } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey, type TypedSearchAttributes } from '@temporalio/common';

/** Built into every Temporal server; default list queries leave its values out. */
export const DIVISION = defineSearchAttributeKey('TemporalNamespaceDivision', SearchAttributeType.KEYWORD);

/** The division a Schedule's runs are started in, as `describe()` reports it. */
export function divisionOf(description: ScheduleDescription): string | undefined {
  if (description.action.type !== 'startWorkflow') return undefined;
  return (description.action.typedSearchAttributes as TypedSearchAttributes | undefined)?.get(DIVISION);
}

/**
 * Creates a Schedule, or brings an existing one to `spec` and `action` when
 * `isCurrent` finds it differs. One update replaces the whole spec (a spread
 * of the old one would keep old calendars, sdk-typescript#1351) and keeps the
 * state an operator set: a paused Schedule stays paused, unless `state` is
 * given, which then goes in the same update.
 */
export async function ensureSchedule(
  client: Client,
  options: Pick<ScheduleOptions, 'scheduleId' | 'spec' | 'action' | 'policies' | 'state' | 'typedSearchAttributes'> & { isCurrent(description: ScheduleDescription): boolean },
): Promise<void> {
  const { isCurrent, ...schedule } = options;
  try {
    await client.schedule.create(schedule);
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(schedule.scheduleId);
    if (isCurrent(await handle.describe())) return;
    // A caller that owns the paused state (a CRM integration's Active/Paused) sends it in the same
    // update: a separate pause() after update() races and can lose the pause (docs/architecture.md).
    await handle.update((previous) => ({
      ...previous,
      spec: schedule.spec,
      action: schedule.action,
      ...(schedule.state ? { state: { ...previous.state, paused: schedule.state.paused ?? previous.state.paused, note: schedule.state.note } } : {}),
    }));
  }
}
