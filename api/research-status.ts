import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../domain/errors.ts';
import type { StatusReply } from '../domain/research-reply.ts';
import { hasEnded } from '../db/entities/research-job.ts';
import { failJob } from '../services/research-jobs.ts';
import { findJobStatus, hasJobEnded, type JobStatusRow } from '../services/job-status.ts';
import { medianCompletionSeconds, remainingSeconds } from '../services/estimates.ts';
import { cancelResearchWorkflow } from '../lib/research-workflow-client.ts';
import type { ApiDeps } from './deps.ts';

const notFound = () => new AppError('not_found', 'No research job with this id.');

/**
 * The reply of `GET /research-status/{id}` (spec §4.2) for a job row already
 * read, as JSON text: a completed reply is sent as the text (or bytes) it was stored as.
 */
export async function researchStatus(deps: ApiDeps, em: EntityManager, accountId: number, job: JobStatusRow | null): Promise<string | Buffer> {
  if (!job) throw notFound();
  if (job.status === 'completed') return job.completed_reply!;
  if (job.status === 'failed') return reply({ research_id: job.id, status: 'failed', error: job.error === 'timeout' ? 'timeout' : 'internal_error' });

  const now = deps.clock();
  const submittedAt = new Date(job.submitted_at);
  if (now.getTime() - submittedAt.getTime() > deps.config.researchOverdueAfterMs) {
    // The workflow enforces the deadline itself; a job still running here lost
    // its workflow or waits in a backlog: spec §3 says it has failed. (If it
    // ended meanwhile, failJob changes nothing and the re-read shows how.)
    if (await failJob(em.fork(), job.id, 'timeout', now)) await cancelResearchWorkflow(deps.temporal, job.id);
    return researchStatus(deps, em, accountId, await findJobStatus(em, accountId, job.id));
  }
  // No workflow query here: a poll of a running job would cost a round trip
  // through Temporal and the worker, and a full cache hit (the one case the
  // workflow's progress would shorten the estimate for) ends inside its first
  // workflow task anyway.
  const median = await medianCompletionSeconds(em, accountId);
  return reply({ research_id: job.id, status: job.status, estimated_seconds: remainingSeconds(median, submittedAt, now) });
}

const reply = (body: StatusReply) => JSON.stringify(body);

/**
 * Extension `?wait=N`: holds the reply until the job ends or N seconds pass.
 * While waiting it reads only the job's status column, often at first (a cache
 * hit ends within a few hundred milliseconds) and then less often; the full
 * reply (with the estimate and the backstop check) is built once, at the end.
 * An unknown id ends the wait at once, with the same 404.
 */
export async function waitForStatus(
  deps: ApiDeps,
  em: EntityManager,
  accountId: number,
  job: JobStatusRow | null,
  waitSeconds: number,
): Promise<string | Buffer> {
  if (!job || hasEnded(job.status)) return researchStatus(deps, em, accountId, job);
  const startedAt = Date.now();
  const deadline = startedAt + waitSeconds * 1000;
  for (;;) {
    const pollMs = waitPollMs(Date.now() - startedAt);
    if (Date.now() + pollMs > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    if (await hasJobEnded(em.fork(), accountId, job.id)) break;
  }
  return researchStatus(deps, em, accountId, await findJobStatus(em, accountId, job.id));
}

/** Poll interval by time waited so far: 10 ms for the first second, then up to 250 ms. */
function waitPollMs(waitedMs: number): number {
  if (waitedMs < 1_000) return 10;
  if (waitedMs < 3_000) return 50;
  return 250;
}
