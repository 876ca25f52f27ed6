// One Temporal Schedule per product integration (docs/architecture.md#crm-sync): it
// holds only when a run starts (cadence and UTC hour, jitter up to 10
// minutes) and whether it is paused; every other setting is read from
// PostgreSQL when the run starts. Brought in line with the database after
// every change and at worker start; spec and paused state go in one update
// (docs/crm.md#the-schedule). Overlapping runs are skipped.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleDescription, type CalendarSpec, type DayOfWeek } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { CADENCE_DAYS, CRM_SCHEDULE_JITTER_MS, CRM_SYNC_WORKFLOW_TYPE, type Cadence } from '../../domain/crm/crm.ts';
import { PLANS, type PlanName } from '../../domain/billing/plans.ts';
import { ensureSchedule } from '../../lib/temporal-schedules.ts';
import type { CrmSyncInput } from '../../domain/crm/sync-contract.ts';

export const crmScheduleId = (productId: number) => `crm-sync-${productId}`;
/** The CRM worker's own task queue beside the research queue, so that syncs never wait behind research backlog. */
export const crmTaskQueue = (researchTaskQueue: string) => `${researchTaskQueue}-crm`;
/** The research queue a CRM queue sits beside (the inverse of `crmTaskQueue`). */
export const researchTaskQueueOfCrm = (crmQueue: string) => crmQueue.replace(/-crm$/, '');

export const CRM_ACCOUNT_ATTRIBUTE = defineSearchAttributeKey('CrmAccountId', SearchAttributeType.KEYWORD);
export const CRM_PRODUCT_ATTRIBUTE = defineSearchAttributeKey('CrmProductId', SearchAttributeType.KEYWORD);

const DAY_NAMES = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'] as const satisfies readonly DayOfWeek[];

export function crmCalendar(cadence: Cadence, hourUtc: number): CalendarSpec {
  const days = CADENCE_DAYS[cadence];
  return { hour: hourUtc, minute: 0, ...(days.length < 7 ? { dayOfWeek: days.map((day) => DAY_NAMES[day]!) } : {}), comment: `${cadence} at ${hourUtc}:00 UTC` };
}

export interface DesiredCrmSchedule {
  productId: number;
  accountId: number;
  cadence: Cadence;
  hourUtc: number;
  paused: boolean;
  note: string;
}

/** What the database says the product's Schedule should be; null: there should be none. */
export async function desiredCrmSchedule(em: EntityManager, productId: number): Promise<DesiredCrmSchedule | null> {
  const [row]: Array<{
    account_id: number; cadence: Cadence; hour_utc: number; active: boolean; paused_reason: string | null; plan: PlanName;
    deletion_requested_at: Date | null; connection_status: string | null;
  }> = await em.execute(
    `select i.account_id, i.cadence, i.hour_utc, i.active, i.paused_reason, a.plan, a.deletion_requested_at, c.status as connection_status
     from crm_integration i join account a on a.id = i.account_id left join crm_connection c on c.account_id = i.account_id
     where i.product_id = ?`,
    [productId],
  );
  if (!row) return null;
  const why = !row.active
    ? `paused${row.paused_reason ? ` (${row.paused_reason})` : ''}`
    : row.deletion_requested_at
      ? 'account deleted'
      : row.connection_status !== 'connected'
        ? 'CRM not connected'
        : !PLANS[row.plan].hasCrmIntegration
          ? `plan ${row.plan} has no CRM integration`
          : null;
  return { productId, accountId: row.account_id, cadence: row.cadence, hourUtc: row.hour_utc, paused: why !== null, note: why ?? 'active' };
}

/** Creates, updates or deletes the product's Schedule to match the database. */
export async function reconcileCrmSchedule(temporal: Client, em: EntityManager, productId: number, researchTaskQueue: string): Promise<DesiredCrmSchedule | null> {
  const desired = await desiredCrmSchedule(em, productId);
  if (!desired) {
    await deleteCrmSchedule(temporal, productId);
    return null;
  }
  const calendar = crmCalendar(desired.cadence, desired.hourUtc);
  const args: [CrmSyncInput] = [{ productId, trigger: 'schedule' }];
  const searchAttributes = [
    { key: CRM_ACCOUNT_ATTRIBUTE, value: String(desired.accountId) },
    { key: CRM_PRODUCT_ATTRIBUTE, value: String(productId) },
  ];
  await ensureSchedule(temporal, {
    scheduleId: crmScheduleId(productId),
    spec: { calendars: [calendar], jitter: CRM_SCHEDULE_JITTER_MS },
    action: {
      type: 'startWorkflow', workflowType: CRM_SYNC_WORKFLOW_TYPE, workflowId: crmScheduleId(productId), taskQueue: crmTaskQueue(researchTaskQueue), args,
      typedSearchAttributes: searchAttributes,
    },
    typedSearchAttributes: searchAttributes,
    // A run still going when the next is due is left alone, never doubled; after an outage one late run, not a burst.
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 hour' },
    state: { paused: desired.paused, note: desired.note },
    isCurrent: (current) => isCurrent(current, desired, crmTaskQueue(researchTaskQueue)),
  });
  return desired;
}

export async function deleteCrmSchedule(temporal: Client, productId: number): Promise<void> {
  try {
    await temporal.schedule.getHandle(crmScheduleId(productId)).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}

/** Every integration's Schedule brought in line, and Schedules of integrations that no longer exist deleted (worker start). */
export async function reconcileAllCrmSchedules(temporal: Client, em: EntityManager, researchTaskQueue: string): Promise<number> {
  const rows: Array<{ product_id: number }> = await em.execute('select product_id from crm_integration order by product_id');
  const wanted = new Set(rows.map((row) => crmScheduleId(row.product_id)));
  for (const row of rows) await reconcileCrmSchedule(temporal, em, row.product_id, researchTaskQueue);
  // Only our own orphans: another deployment (or test stack) sharing the namespace starts its runs on its own queue.
  for await (const schedule of temporal.schedule.list({ query: `CrmProductId IS NOT NULL` })) {
    if (!schedule.scheduleId.startsWith('crm-sync-') || wanted.has(schedule.scheduleId)) continue;
    const handle = temporal.schedule.getHandle(schedule.scheduleId);
    const action = await handle.describe().then((described) => described.action, () => null);
    if (action?.type === 'startWorkflow' && action.taskQueue === crmTaskQueue(researchTaskQueue)) await handle.delete().catch(() => {});
  }
  return rows.length;
}

/** `describe()` expands calendars into ranges and durations into ms: compare what matters in that form. */
function isCurrent(current: ScheduleDescription, desired: DesiredCrmSchedule, taskQueue: string): boolean {
  const [calendar, ...others] = current.spec.calendars ?? [];
  if (!calendar || others.length > 0 || (current.spec.intervals ?? []).length > 0) return false;
  const expand = <T>(ranges: Array<{ start: T; end: T; step?: number }> | undefined, index: (value: T) => number) =>
    (ranges ?? []).flatMap((range) => {
      const values: number[] = [];
      for (let at = index(range.start); at <= index(range.end); at += Math.max(range.step ?? 1, 1)) values.push(at);
      return values;
    });
  const dayIndex = (day: unknown) => (typeof day === 'number' ? day : DAY_NAMES.indexOf(day as (typeof DAY_NAMES)[number]));
  const hours = expand(calendar.hour as Array<{ start: number; end: number; step?: number }>, Number);
  const days = calendar.dayOfWeek ? expand(calendar.dayOfWeek as Array<{ start: unknown; end: unknown; step?: number }>, dayIndex) : [0, 1, 2, 3, 4, 5, 6];
  const wantedDays = CADENCE_DAYS[desired.cadence];
  return (
    hours.length === 1 && hours[0] === desired.hourUtc &&
    days.length === wantedDays.length && wantedDays.every((day) => days.includes(day)) &&
    current.spec.jitter === CRM_SCHEDULE_JITTER_MS &&
    current.state.paused === desired.paused && (current.state.note ?? '') === desired.note &&
    current.action.type === 'startWorkflow' && current.action.workflowType === CRM_SYNC_WORKFLOW_TYPE && current.action.taskQueue === taskQueue
  );
}

/** The Schedule's next nominal start times as Temporal computes them (jitter included). */
export async function crmScheduleNextRuns(temporal: Client, productId: number): Promise<Date[]> {
  try {
    return (await temporal.schedule.getHandle(crmScheduleId(productId)).describe()).info.nextActionTimes;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return [];
    throw error;
  }
}
