import type { Client } from '@temporalio/client';
import type { Orm } from '../../db/orm.ts';
import { RESEARCH_PRIORITY_KEY } from '../../domain/research/fanout.ts';
import { accountFairness, type FairnessWeights } from '../../domain/research/fairness.ts';
import { startResearchWorkflow } from '../../lib/research-workflow-client.ts';
import type { Logger } from '../../lib/logger.ts';
import { workflowStartMetrics } from '../../lib/metrics.ts';
import { claimUnstartedJobs, markWorkflowsStarted, type UnstartedJob } from './workflow-start-outbox.ts';

export interface WorkflowStarts {
  temporal: Client;
  taskQueue: string;
  /** RESEARCH_DEADLINE_MS: the workflow counts it from the job's submission, not from its start. */
  deadlineMs: number;
  /** Each plan's fairness weight (config.fairnessWeights); unset: equal. */
  fairnessWeights?: FairnessWeights;
}

/**
 * Starts the workflow of a recorded job; an existing one counts as started.
 * The input carries the submission time, so a late start keeps the deadline
 * where it was: a job started after it ends failed/timeout with its refund
 * (the workflow's first step), like any job that overran.
 */
export function startJobWorkflow(starts: WorkflowStarts, job: UnstartedJob, timeoutMs: number): Promise<void> {
  const input = { researchId: job.id, submittedAtMs: job.submittedAt.getTime(), deadlineMs: starts.deadlineMs };
  // Beside the source's priority, the account's fairness key: within a
  // priority, Temporal takes the accounts' queued jobs in turns, so one
  // account's burst never queues another's jobs behind all of it.
  const priority = { priorityKey: RESEARCH_PRIORITY_KEY[job.source], ...accountFairness(job.accountId, job.plan, starts.fairnessWeights) };
  return startResearchWorkflow(starts.temporal, starts.taskQueue, input, job.accountId, timeoutMs, priority);
}

/**
 * The try right after the job's transaction committed (the API's, before its
 * 202): start the workflow, then mark it started in the background. A
 * failure is logged and left to the relay; the job stays accepted either way.
 * True when it started.
 */
export async function startRecordedJobNow(
  starts: WorkflowStarts & { orm: Orm; clock: () => Date; logger: Logger },
  job: UnstartedJob,
): Promise<boolean> {
  try {
    await startJobWorkflow(starts, job, API_WORKFLOW_START_TIMEOUT_MS);
  } catch (error) {
    workflowStartMetrics.starts.inc({ attempt: 'first', outcome: 'failed' });
    starts.logger.warn({ err: error, researchId: job.id }, 'research workflow not started yet; the relay will start it');
    return false;
  }
  workflowStartMetrics.starts.inc({ attempt: 'first', outcome: 'started' });
  // Not awaited: the caller's 202 does not wait for this write (the cache-hit
  // path's latency). Left unmarked (PostgreSQL gone since the commit, the API
  // killed now), the relay's next start finds the workflow and marks it.
  void markWorkflowsStarted(starts.orm.em.fork(), [job.id], starts.clock()).catch((error: unknown) =>
    starts.logger.warn({ err: error, researchId: job.id }, 'research workflow started but not marked; the relay will mark it'),
  );
  return true;
}

export interface WorkflowStartRelayOptions extends WorkflowStarts {
  orm: Orm;
  clock: () => Date;
  logger: Logger;
  intervalMs?: number;
  batchSize?: number;
  /**
   * Jobs younger than this are left to whoever recorded them and is starting
   * them now (the API tries for API_WORKFLOW_START_TIMEOUT_MS): the relay takes
   * only the ones that try missed, and never doubles the start of a healthy job.
   */
  graceMs?: number;
}

export interface WorkflowStartRelay {
  /** One pass: starts every waiting job it can, in batches; how many it started. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** The API's own try, before it answers 202; past it, the relay takes over. */
export const API_WORKFLOW_START_TIMEOUT_MS = 2_000;
const RELAY_INTERVAL_MS = 1_000;
const RELAY_BATCH_SIZE = 100;
const RELAY_GRACE_MS = API_WORKFLOW_START_TIMEOUT_MS + 1_000;
const RELAY_START_TIMEOUT_MS = 5_000;
/** Starts in flight at once. A lane stops at its first failure, so an unreachable Temporal costs one timeout per batch. */
const RELAY_LANES = 8;

/**
 * The relay of the workflow-start outbox (services/research/workflow-start-outbox.ts):
 * at start-up and every second, it starts the workflow of every recorded job
 * that has none yet, oldest first, in bounded batches, and marks them started.
 * The API and the worker each run one; any number of relays may run at once
 * (each claims its batch with SKIP LOCKED). While Temporal or PostgreSQL is
 * unreachable it keeps trying, and says so once.
 */
export function startWorkflowStartRelay(options: WorkflowStartRelayOptions): WorkflowStartRelay {
  const { orm, clock, logger } = options;
  const intervalMs = options.intervalMs ?? RELAY_INTERVAL_MS;
  const batchSize = options.batchSize ?? RELAY_BATCH_SIZE;
  const graceMs = options.graceMs ?? RELAY_GRACE_MS;
  let isFailing = false;
  let isStopped = false;
  let timer: NodeJS.Timeout | null = null;
  let pass: Promise<number> | null = null;

  /** Claims one batch, starts what it can while holding the claim, marks those started. */
  async function relayBatch(): Promise<{ claimed: number; started: UnstartedJob[]; failure: unknown }> {
    return orm.em.fork().transactional(async (tx) => {
      const jobs = await claimUnstartedJobs(tx, { submittedBefore: new Date(clock().getTime() - graceMs), limit: batchSize });
      const started: UnstartedJob[] = [];
      let failure: unknown = null;
      let next = 0;
      const lanes = Array.from({ length: Math.min(RELAY_LANES, jobs.length) }, async () => {
        while (next < jobs.length && failure === null) {
          const job = jobs[next++];
          try {
            await startJobWorkflow(options, job, RELAY_START_TIMEOUT_MS);
            started.push(job);
            workflowStartMetrics.starts.inc({ attempt: 'relay', outcome: 'started' });
          } catch (error) {
            failure ??= error;
            workflowStartMetrics.starts.inc({ attempt: 'relay', outcome: 'failed' });
            return;
          }
        }
      });
      await Promise.all(lanes);
      await markWorkflowsStarted(tx, started.map((job) => job.id), clock());
      return { claimed: jobs.length, started, failure };
    });
  }

  async function runPass(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const { claimed, started, failure } = await relayBatch();
        total += started.length;
        if (started.length > 0) {
          const waitedMs = clock().getTime() - Math.min(...started.map((job) => job.submittedAt.getTime()));
          logger.info({ started: started.length, oldestWaitedMs: waitedMs }, 'relay started workflows of accepted jobs');
        }
        if (failure !== null) throw failure;
        if (claimed < batchSize) break;
      }
      if (isFailing) logger.info('relay: starting workflows again');
      isFailing = false;
    } catch (error) {
      // Temporal or PostgreSQL unreachable: the jobs wait in the outbox; said once per outage.
      if (!isFailing) logger.warn({ err: error }, 'relay: cannot start the workflows of waiting jobs yet; retrying every second');
      isFailing = true;
    }
    return total;
  }

  function runOnce(): Promise<number> {
    // One pass at a time in a process; another process's relay is kept apart by SKIP LOCKED.
    pass ??= runPass().finally(() => {
      pass = null;
    });
    return pass;
  }

  async function loop(): Promise<void> {
    await runOnce();
    if (!isStopped) timer = setTimeout(loop, intervalMs);
  }
  void loop();

  return {
    runOnce,
    async stop() {
      isStopped = true;
      if (timer) clearTimeout(timer);
      await pass;
    },
  };
}
