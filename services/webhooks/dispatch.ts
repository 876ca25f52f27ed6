import pg from 'pg';
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Orm } from '../../db/orm.ts';
import { WEBHOOK_DELIVERY_WORKFLOW_TYPE, webhookDeliveryWorkflowId, webhookTaskQueue, type WebhookDeliveryOptions } from '../../domain/webhooks/contract.ts';
import type { WebhookConfig } from '../../integrations/webhooks/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { MAIL_OUTBOX_SEARCH_ATTRIBUTES } from '../mail/outbox.ts';
import { attemptLoadedDelivery } from './attempt.ts';
import { claimFirstAttempts, endDelivery, type DeliveryToSend } from './webhooks.ts';

export interface WebhookDispatcherOptions {
  orm: Orm;
  temporal: Client;
  databaseUrl: string;
  researchTaskQueue: string;
  logger: Logger;
  /** The safety net behind the notifications (a lost one, a Temporal outage). */
  intervalMs?: number;
  /**
   * Where set, the dispatcher sends each delivery's first attempt itself and
   * starts a delivery workflow only for the retries of one that failed;
   * without it, every delivery gets a workflow for all of its attempts.
   */
  firstAttempts?: { webhooks: WebhookConfig; clock: () => Date };
  /** First attempts to one endpoint under way at once (WEBHOOK_ATTEMPTS_PER_ENDPOINT; claimFirstAttempts). */
  attemptsPerEndpoint?: number;
}

export interface WebhookDispatcher {
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

const BATCH_SIZE = 100;
const START_TIMEOUT_MS = 5_000;
const START_LANES = 16;
/** First attempts under way at once: mostly waiting on receivers (each up to 15 s). */
const MAX_ATTEMPTS_IN_FLIGHT = 64;
/** A first attempt claimed this long ago and not handed on: its dispatcher died; a workflow takes the delivery over. */
const CLAIM_EXPIRES_MS = 60_000;

/**
 * Sends every new delivery (written by the job-end trigger, "Send test
 * event" or "Resend"): woken by `webhook_delivery_created` at once, and every
 * few seconds in case a notification was lost.
 *
 * The first attempt goes out from here, outside Temporal: a workflow start,
 * its task and its activity's task cost more than the POST on a busy worker
 * (docs/webhooks.md#delivery). Each delivery is claimed by one dispatcher
 * first; one that fails gets a delivery workflow for its retries. A
 * dispatcher that dies between its POST and the hand-over leaves a claim that
 * expires, and a workflow then tries again: at least once, with the same
 * `webhook-id`, as Standard Webhooks expects. The workflow id comes from the
 * delivery, so a start repeated by a second dispatcher is a no-op.
 */
export async function startWebhookDispatcher(options: WebhookDispatcherOptions): Promise<WebhookDispatcher> {
  const { orm, temporal, logger } = options;
  const taskQueue = webhookTaskQueue(options.researchTaskQueue);
  let isStopped = false;
  let running: Promise<number> | null = null;
  let isRequested = false;
  let isFailing = false;

  /** A delivery's workflow, its id taken from the delivery: one that exists already counts as started. */
  async function startDeliveryWorkflow(row: { id: string; run: number }, args: [string] | [string, WebhookDeliveryOptions]): Promise<void> {
    try {
      await temporal.connection.withDeadline(Date.now() + START_TIMEOUT_MS, () =>
        temporal.workflow.start(WEBHOOK_DELIVERY_WORKFLOW_TYPE, {
          workflowId: webhookDeliveryWorkflowId(row.id, row.run),
          taskQueue,
          args,
          typedSearchAttributes: MAIL_OUTBOX_SEARCH_ATTRIBUTES,
        }),
      );
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  async function dispatchBatch(): Promise<number> {
    const { count, failure } = await orm.em.fork().transactional(async (tx) => {
      // With first attempts sent here, only the claims of a dispatcher that died come this way.
      const rows: { id: string; run: number }[] = options.firstAttempts
        ? await tx.execute(
            `select id, run from webhook_delivery
              where workflow_started_at is null and first_attempt_claimed_at < now() - make_interval(secs => ?)
              order by created_at limit ? for update skip locked`,
            [CLAIM_EXPIRES_MS / 1000, BATCH_SIZE],
          )
        : await tx.execute(`select id, run from webhook_delivery where workflow_started_at is null order by created_at limit ? for update skip locked`, [BATCH_SIZE]);
      const started: string[] = [];
      let failure: unknown = null;
      let next = 0;
      // Several starts in flight: deliveries of jobs that end together (a burst) must not queue behind each other's round trips.
      const lanes = Array.from({ length: Math.min(START_LANES, rows.length) }, async () => {
        while (next < rows.length && failure === null) {
          const row = rows[next++];
          try {
            await startDeliveryWorkflow(row, [row.id]);
          } catch (error) {
            failure ??= error;
            return;
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

  /**
   * Claims new deliveries, as many as there is room for, and sends each one's
   * first attempt without waiting for the others: a delivery that arrives
   * while a slow receiver is being waited on goes out at once. When an attempt
   * ends, a pass looks again for what arrived meanwhile.
   */
  const attemptsInFlight = new Set<Promise<void>>();
  async function sendFirstAttempts(firstAttempts: NonNullable<WebhookDispatcherOptions['firstAttempts']>): Promise<number> {
    const room = MAX_ATTEMPTS_IN_FLIGHT - attemptsInFlight.size;
    if (room <= 0) return 0;
    const rows = await claimFirstAttempts(orm.em.fork(), firstAttempts.webhooks.secretKey, Math.min(room, BATCH_SIZE), firstAttempts.clock(), options.attemptsPerEndpoint);
    // A claim may have left deliveries behind (the room full, or their endpoint's): each attempt that ends looks again.
    for (const row of rows) {
      const attempt: Promise<void> = sendFirstAttempt(firstAttempts, row)
        .catch((error: unknown) => {
          // Left claimed: once the claim expires, a workflow takes the delivery over.
          logger.warn({ err: error, deliveryId: row.id }, 'a webhook first attempt was not handed on; a delivery workflow takes it over');
        })
        .finally(() => {
          attemptsInFlight.delete(attempt);
          if (!isStopped) void runOnce();
        });
      attemptsInFlight.add(attempt);
    }
    return rows.length;
  }

  async function sendFirstAttempt(firstAttempts: NonNullable<WebhookDispatcherOptions['firstAttempts']>, row: DeliveryToSend & { run: number }): Promise<void> {
    const em = orm.em.fork();
    const result = await attemptLoadedDelivery(em, firstAttempts.webhooks, row, firstAttempts.clock, { isFirstAttempt: true });
    // Delivered: recorded and handed on in one statement already.
    if (result.kind === 'ended' && result.outcome === 'delivered') return;
    if (result.kind === 'final') await endDelivery(em, row.id, 'failed', firstAttempts.clock(), result.reason);
    if (result.kind === 'retry') await startDeliveryWorkflow(row, [row.id, { firstAttempt: { retryAfterMs: result.retryAfterMs } }]);
    // Handed on: delivered, ended, or its retries in a workflow.
    await em.execute('update webhook_delivery set workflow_started_at = now() where id = ?', [row.id]);
  }

  /**
   * With first attempts sent here, the batch below only takes over claims
   * that expired (a minute old): the interval's passes look for them, and a
   * pass woken by a new delivery or an ended attempt goes straight to its
   * claim, a transaction sooner.
   */
  let isSweepDue = true;

  async function pass(): Promise<number> {
    let total = 0;
    try {
      if (options.firstAttempts) {
        total += await sendFirstAttempts(options.firstAttempts);
      }
      const isBatchDue = !options.firstAttempts || isSweepDue;
      isSweepDue = false;
      while (isBatchDue) {
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
  const timer = setInterval(() => {
    isSweepDue = true;
    void runOnce();
  }, options.intervalMs ?? 2_000);
  void runOnce();

  return {
    runOnce,
    async stop() {
      isStopped = true;
      await Promise.all(attemptsInFlight);
      clearInterval(timer);
      await running;
      await listener.end().catch(() => {});
    },
  };
}
