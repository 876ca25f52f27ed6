import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, CREDIT_REFUSAL_MESSAGES } from '../domain/errors.ts';
import type { ResearchRequest } from '../domain/research/request.ts';
import type { IResearchJob } from '../db/entities/research-job.ts';
import type { AuthenticatedKey } from '../services/accounts/api-keys.ts';
import { submitResearchJob } from '../services/research/jobs.ts';
import { startRecordedJobNow } from '../services/research/workflow-start-relay.ts';
import { DEFAULT_ESTIMATE_SECONDS, estimateForNewJob } from '../services/research/estimates.ts';
import { nudgeMailOutbox } from '../services/mail/outbox.ts';
import type { ApiDeps } from './deps.ts';

export interface SubmittedResearch {
  job: IResearchJob;
  /** False for a replay of an earlier request (same Idempotency-Key): nothing was charged. */
  isNew: boolean;
  estimatedSeconds: number;
}

/**
 * A research job as `POST /research` takes it, for the HTTP API and the MCP
 * tool research_prospect alike: recorded with its credit, its workflow
 * started, the estimate read. A refusal (credits, a reused key) is an AppError.
 */
export async function submitAndStartResearch(
  deps: ApiDeps,
  em: EntityManager,
  input: { apiKey: AuthenticatedKey; request: ResearchRequest; idempotencyKey: string | null; requestHash: string; source: 'api' | 'mcp' },
): Promise<SubmittedResearch> {
  const now = deps.clock();
  const submission = await submitResearchJob(em, input, now, { publicUrl: deps.publicUrl });
  // After the commit, and not awaited: a usage alert must not slow or fail the request (the Schedule is the safety net).
  if (submission.outcome === 'accepted' && submission.isMailQueued) void nudgeMailOutbox(deps.temporal, deps.config.temporal.taskQueue, deps.logger);
  if (submission.outcome === 'refused') {
    const { code, used, limit } = submission.refusal;
    throw new AppError(code, CREDIT_REFUSAL_MESSAGES[code], { used, limit });
  }
  if (submission.outcome === 'idempotency_conflict') {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with another request body.');
  }
  const { job } = submission;
  // Accepted once committed: its workflow is started now (also for a replayed
  // request whose API died before starting it), or, when Temporal does not
  // answer in time, by the relay (services/research/workflow-start-relay.ts). The
  // estimate is read meanwhile; the job is accepted even if that read fails.
  const isWaitingForWorkflow = job.status === 'queued' && job.workflowStartedAt === null;
  const [, estimatedSeconds] = await Promise.all([
    isWaitingForWorkflow ? startRecordedJobNow(workflowStarts(deps), { id: job.id, accountId: input.apiKey.accountId, plan: submission.plan, submittedAt: job.submittedAt, source: input.source }) : null,
    estimateForNewJob(em, input.apiKey, input.request.email, now).catch(() => DEFAULT_ESTIMATE_SECONDS),
  ]);
  return { job, isNew: submission.outcome === 'accepted', estimatedSeconds };
}

const workflowStarts = (deps: ApiDeps) => ({
  orm: deps.orm,
  clock: deps.clock,
  logger: deps.logger,
  temporal: deps.temporal,
  taskQueue: deps.config.temporal.taskQueue,
  deadlineMs: deps.config.researchDeadlineMs,
  fairnessWeights: deps.config.fairnessWeights,
});
