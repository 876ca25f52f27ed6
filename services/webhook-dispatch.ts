import pg from 'pg';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Orm } from '../db/orm.ts';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryWorkflowId, webhookTaskQueue } from '../domain/webhook-contract.ts';
import type { Logger } from '../lib/logger.ts';
import { MAIL_OUTBOX_SEARCH_ATTRIBUTES } from './mail-outbox.ts';

export interface WebhookDispatcherOptions {
  orm: Orm;
  temporal: Client;
  databaseUrl: string;
  researchTaskQueue: string;
  logger: Logger;
  /** The safety net behind the notifications (a lost one, a Temporal outage). */
  intervalMs?: number;
}

export interface WebhookDispatcher {
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH_SIZE = 100;
const START_TIMEOUT_MS = 5_000;
const START_LANES = 16;

/**
 * Starts a delivery workflow for every delivery that has none yet (written by
 * the job-end trigger, "Send test event" or "Resend"): woken by
 * `webhook_delivery_created` at once, and every few seconds in case a
 * notification was lost. The workflow id comes from the delivery, so a start
 * repeated by a second dispatcher, or after a crash before the mark, is a no-op.
 */
export async function startWebhookDispatcher(options: WebhookDispatcherOptions): Promise<WebhookDispatcher> {
  const { orm, temporal, logger } = options;
  const taskQueue = webhookTaskQueue(options.researchTaskQueue);
  let isStopped = false;
  let running: Promise<number> | null = null;
  let isRequested = false;
  let isFailing = false;

  async function dispatchBatch(): Promise<number> {
    const { count, failure } = await orm.em.fork().transactional(async (tx) => {
      const rows: { id: string; run: number }[] = await tx.execute(
        `select id, run from webhook_delivery where workflow_started_at is null order by created_at limit ? for update skip locked`,
        [BATCH_SIZE],
      );
      const started: string[] = [];
      let failure: unknown = null;
      let next = 0;
      // Several starts in flight: deliveries of jobs that end together (a burst) must not queue behind each other's round trips.
      const lanes = Array.from({ length: Math.min(START_LANES, rows.length) }, async () => {
        while (next < rows.length && failure === null) {
          const row = rows[next++];
          try {
            await temporal.connection.withDeadline(Date.now() + START_TIMEOUT_MS, () =>
              temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
                workflowId: webhookDeliveryWorkflowId(row.id, row.run),
                taskQueue,
                args: [row.id],
                typedSearchAttributes: MAIL_OUTBOX_SEARCH_ATTRIBUTES,
              }),
            );
          } catch (error) {
            if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
              failure ??= error;
              return;
            }
          }
          started.push(row.id);
        }
      });
      await Promise.all(lanes);
      if (started.length > 0) await tx.execute('update webhook_delivery set workflow_started_at = now() where id in (?)', [started]);
      return { count: started.length, failure };
    });
    // The ones started are marked (committed); the rest wait for the next pass, where a start that did happen is a no-op.
    if (failure !== null) throw failure;
    return count;
  }

  async function pass(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const count = await dispatchBatch();
        total += count;
        if (count < BATCH_SIZE) break;
      }
      if (isFailing) logger.info('webhook deliveries are being started again');
      isFailing = false;
    } catch (error) {
      if (!isFailing) logger.warn({ err: error }, 'webhook deliveries cannot be started now; retrying');
      isFailing = true;
    }
    return total;
  }

  /** Coalesces wake-ups: one pass at a time, and one more if woken during it. */
  function runOnce(): Promise<number> {
    if (running) {
      isRequested = true;
      return running;
    }
    running = pass().finally(() => {
      running = null;
      if (isRequested && !isStopped) {
        isRequested = false;
        void runOnce();
      }
    });
    return running;
  }

  const listener = new pg.Client({ connectionString: options.databaseUrl });
  listener.on('notification', () => void runOnce());
  listener.on('error', (error) => logger.warn({ err: error }, 'the webhook dispatcher lost its notifications; it keeps its interval'));
  try {
    await listener.connect();
    await listener.query('listen webhook_delivery_created');
  } catch (error) {
    logger.warn({ err: error }, 'the webhook dispatcher cannot listen; it keeps its interval');
  }
  const timer = setInterval(() => void runOnce(), options.intervalMs ?? 2_000);
  void runOnce();

  return {
    runOnce,
    async stop() {
      isStopped = true;
      clearInterval(timer);
      await running;
      await listener.end().catch(() => {});
    },
  };
}
