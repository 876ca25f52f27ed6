import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../domain/errors.ts';
import type { StatusReply } from '../domain/research/reply.ts';
import { hasEnded } from '../db/entities/research-job.ts';
import { failJob } from '../services/research/jobs.ts';
import { findJobStatus, type JobStatusRow } from '../services/research/job-status.ts';
import { medianCompletionSeconds, remainingSeconds } from '../services/research/estimates.ts';
import { cancelResearchWorkflow } from '../lib/research-workflow-client.ts';
import type { ApiDeps } from './deps.ts';

const notFound = () => new AppError('not_found', 'No research job with this id.');

/**
 * The reply of `GET /research-status/{id}` (docs/api.md#get-research-statusresearch_id) for a job row already
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
    // its workflow or waits in a backlog: docs/api.md#job-states says it has failed. (If it
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
 * It registers for the job's end (db/job-end-notifications.ts), then re-reads
 * the row (an end in between is not missed) and sleeps until the end is
 * announced; the full reply (with the estimate and the backstop check) is
 * built once, at the end. An unknown id ends the wait at once, with the same 404.
 */
export async function waitForStatus(
  deps: ApiDeps,
  em: EntityManager,
  accountId: number,
  job: JobStatusRow | null,
  waitSeconds: number,
): Promise<string | Buffer> {
  const deadline = Date.now() + waitSeconds * 1000;
  let current = job;
  while (current && !hasEnded(current.status)) {
    const remainingMs = deadline - Date.now();
    // A draining API answers long polls with what it has: the caller's next poll reaches another API.
    if (remainingMs <= 0 || deps.isDraining?.()) break;
    const jobEnd = deps.jobEnds.wait(current.id, remainingMs);
    current = await findJobStatus(em, accountId, current.id);
    if (!current || hasEnded(current.status)) {
      jobEnd.cancel();
      break;
    }
    await jobEnd.outcome;
  }
  return researchStatus(deps, em, accountId, current);
}
