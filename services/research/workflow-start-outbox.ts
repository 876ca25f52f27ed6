import type { PlanName } from '../../domain/billing/plans.ts';
import type { ResearchSource } from '../../domain/research/fanout.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, ApiKey, ProductContextRow, ResearchJob } from '../../db/entities/index.ts';
import type { IResearchJob } from '../../db/entities/research-job.ts';
import type { ResearchRequest } from '../../domain/research/request.ts';
import { activeTraceparent } from '../../lib/tracing.ts';

/**
 * The outbox of workflow starts (docs/decisions.md#an-accepted-job-runs). A job is
 * recorded together with the intent to start its workflow, in the transaction
 * that takes its credit: `workflow_started_at` stays null until the workflow
 * exists. Whoever records the job tries to start it at once; the relay
 * (services/research/workflow-start-relay.ts) starts the ones that try missed (a crash,
 * Temporal unreachable), so an accepted job never depends on that one try.
 */

export interface NewResearchJob {
  /** `res_…`: also the workflow id, so that however often it is started, it runs once. */
  id: string;
  accountId: number;
  productId: number | null;
  apiKeyId: number | null;
  request: ResearchRequest;
  /** The 3-minute deadline counts from here, however late the workflow starts (docs/api.md#job-states). */
  submittedAt: Date;
  idempotencyKey?: string | null;
  requestHash?: string | null;
  /** Who asked: `api` unless said (a fan-out sets its own source on the row it recorded). */
  source?: 'api' | 'mcp';
}

/**
 * Records a `queued` research job and the intent to start its workflow, in the
 * caller's transaction (the one that takes its credit). Any source of jobs
 * (the API, CRM runs, lists) records through here and gets the relay's promise.
 * A source whose job already runs inside a workflow of the research id marks it
 * started right after (`markWorkflowsStarted`).
 */
export function recordResearchJob(tx: EntityManager, job: NewResearchJob): IResearchJob {
  return tx.create(ResearchJob, {
    id: job.id,
    account: tx.getReference(Account, job.accountId),
    product: job.productId === null ? null : tx.getReference(ProductContextRow, job.productId),
    apiKey: job.apiKeyId === null ? null : tx.getReference(ApiKey, job.apiKeyId),
    email: job.request.email,
    request: job.request,
    status: 'queued',
    error: null,
    submittedAt: job.submittedAt,
    workflowStartedAt: null,
    startedAt: null,
    completedAt: null,
    completedReply: null,
    idempotencyKey: job.idempotencyKey ?? null,
    requestHash: job.requestHash ?? null,
    source: job.source ?? 'api',
    modelUsage: null,
    traceContext: activeTraceparent(),
  });
}

/** What starting a recorded job's workflow needs from its row. */
export interface UnstartedJob {
  id: string;
  accountId: number;
  /** The account's plan: its fairness weight on the research queue. */
  plan: PlanName;
  submittedAt: Date;
  source: ResearchSource;
}

/**
 * The relay's claim, inside the caller's transaction: up to `limit` queued jobs
 * submitted before `submittedBefore` whose workflow has not started, oldest
 * first. Each row stays locked until the transaction ends and another relay's
 * claim skips it (SKIP LOCKED), so two relays never start the same job twice
 * at once, nor wait on each other. Jobs that ended meanwhile (the backstop
 * failed them) are never claimed.
 */
export async function claimUnstartedJobs(tx: EntityManager, options: { submittedBefore: Date; limit: number }): Promise<UnstartedJob[]> {
  // The plan through a subquery: FOR UPDATE locks the job rows only, never their accounts.
  const rows: Array<{ id: string; account_id: number; plan: PlanName; submitted_at: Date | string; source: ResearchSource }> = await tx.execute(
    `select id, account_id, (select a.plan from account a where a.id = research_job.account_id) as plan, submitted_at, source from research_job
      where workflow_started_at is null and status = 'queued' and submitted_at < ?
      order by submitted_at, id
      limit ?
      for update skip locked`,
    [options.submittedBefore, options.limit],
  );
  return rows.map((row) => ({ id: row.id, accountId: row.account_id, plan: row.plan, submittedAt: new Date(row.submitted_at), source: row.source }));
}

/**
 * The workflows of these jobs exist: the outbox forgets them. Rows another
 * relay holds are skipped rather than waited for (a caller's reply must not
 * wait on a relay's batch): that relay finds their workflows and marks them.
 */
export async function markWorkflowsStarted(em: EntityManager, researchIds: readonly string[], now: Date): Promise<void> {
  if (researchIds.length === 0) return;
  await em.execute(
    `update research_job set workflow_started_at = ?
      where id in (select id from research_job where id in (?) and workflow_started_at is null for update skip locked)`,
    [now, [...researchIds]],
  );
}
