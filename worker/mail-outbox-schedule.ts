import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import type { TypedSearchAttributes } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createMailOutboxActivities, type MailOutboxDeps } from '../activities/mail-outbox.ts';
import { MAIL_OUTBOX_WORKFLOW_TYPE, mailOutboxWorkflowId, mailTaskQueue } from '../domain/mail-outbox-contract.ts';
import { MAIL_OUTBOX_SEARCH_ATTRIBUTES } from '../services/mail-outbox.ts';

/** The safety net behind the nudges: mail a nudge missed (Temporal unreachable, a crash) goes out within this. */
const OUTBOX_SCHEDULE_INTERVAL_MS = 60_000;
const DIVISION_KEY = MAIL_OUTBOX_SEARCH_ATTRIBUTES[0].key;

/**
 * Creates the outbox's Schedule once per task queue (visible and pausable in
 * the Temporal UI); an existing one is brought to this interval, queue and
 * division.
 * Overlap SKIP: a run still retrying an SMTP outage is not joined by more.
 */
export async function ensureMailOutboxSchedule(client: Client, researchTaskQueue: string): Promise<void> {
  const scheduleId = `mail-outbox-${researchTaskQueue}`;
  const taskQueue = mailTaskQueue(researchTaskQueue);
  const spec = { intervals: [{ every: OUTBOX_SCHEDULE_INTERVAL_MS }] };
  const action = { type: 'startWorkflow', workflowType: MAIL_OUTBOX_WORKFLOW_TYPE, workflowId: mailOutboxWorkflowId(researchTaskQueue), taskQueue, args: [], typedSearchAttributes: MAIL_OUTBOX_SEARCH_ATTRIBUTES } as const;
  try {
    await client.schedule.create({ scheduleId, spec, policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' }, action });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    const handle = client.schedule.getHandle(scheduleId);
    const current = await handle.describe();
    const division = current.action.type === 'startWorkflow' ? (current.action.typedSearchAttributes as TypedSearchAttributes | undefined)?.get(DIVISION_KEY) : undefined;
    if (current.spec.intervals?.[0]?.every === OUTBOX_SCHEDULE_INTERVAL_MS && current.action.taskQueue === taskQueue && division === MAIL_OUTBOX_SEARCH_ATTRIBUTES[0].value) return;
    await handle.update((previous) => ({ ...previous, spec, action }));
  }
}

/** The outbox's own small worker, beside the research worker on the same connection. */
export async function createMailOutboxWorker(options: {
  connection: NativeConnection;
  namespace: string;
  researchTaskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  deps: MailOutboxDeps;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: mailTaskQueue(options.researchTaskQueue),
    workflowBundle: options.workflowBundle,
    activities: createMailOutboxActivities(options.deps),
    maxConcurrentWorkflowTaskExecutions: 4,
    maxConcurrentActivityTaskExecutions: 4,
    maxCachedWorkflows: 10,
    shutdownGraceTime: '10 seconds',
  });
}
