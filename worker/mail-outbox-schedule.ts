import { ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createMailOutboxActivities, type MailOutboxDeps } from '../activities/mail-outbox.ts';
import { MAIL_OUTBOX_WORKFLOW_TYPE, mailOutboxWorkflowId, mailTaskQueue } from '../domain/mail/outbox-contract.ts';
import { MAIL_OUTBOX_SEARCH_ATTRIBUTES } from '../services/mail/outbox.ts';
import { divisionOf, ensureSchedule } from '../lib/temporal-schedules.ts';
import { createMaintenanceWorker } from './maintenance-worker.ts';
import type { WorkerVersioning } from './versioning.ts';

/** The safety net behind the nudges: mail a nudge missed (Temporal unreachable, a crash) goes out within this. */
const OUTBOX_SCHEDULE_INTERVAL_MS = 60_000;

/**
 * Creates the outbox's Schedule once per task queue (visible and pausable in
 * the Temporal UI); an existing one is brought to this interval, queue and
 * division.
 * Overlap SKIP: a run still retrying an SMTP outage is not joined by more.
 */
export async function ensureMailOutboxSchedule(client: Client, researchTaskQueue: string): Promise<void> {
  const taskQueue = mailTaskQueue(researchTaskQueue);
  await ensureSchedule(client, {
    scheduleId: `mail-outbox-${researchTaskQueue}`,
    spec: { intervals: [{ every: OUTBOX_SCHEDULE_INTERVAL_MS }] },
    action: {
      type: 'startWorkflow',
      workflowType: MAIL_OUTBOX_WORKFLOW_TYPE,
      workflowId: mailOutboxWorkflowId(researchTaskQueue),
      taskQueue,
      args: [],
      typedSearchAttributes: MAIL_OUTBOX_SEARCH_ATTRIBUTES,
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    isCurrent: (current) =>
      current.spec.intervals?.[0]?.every === OUTBOX_SCHEDULE_INTERVAL_MS &&
      current.action.taskQueue === taskQueue &&
      divisionOf(current) === MAIL_OUTBOX_SEARCH_ATTRIBUTES[0].value,
  });
}

export function createMailOutboxWorker(options: {
  connection: NativeConnection;
  namespace: string;
  researchTaskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  versioning?: WorkerVersioning;
  deps: MailOutboxDeps;
}): Promise<Worker> {
  return createMaintenanceWorker({
    ...options,
    taskQueue: mailTaskQueue(options.researchTaskQueue),
    activities: createMailOutboxActivities(options.deps),
    concurrency: 4,
  });
}
