import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../domain/errors.ts';
import type { StatusReply } from '../domain/research-reply.ts';
import { failJob } from '../services/research-jobs.ts';
import { medianCompletionSeconds, remainingSeconds } from '../services/estimates.ts';
import { cancelResearchWorkflow, queryProgress } from '../lib/research-workflow-client.ts';
import type { ApiDeps } from './deps.ts';

/** What a job id can look like at all: visible ASCII and no longer than its column. */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,255}$/;
/** Looked up in place of an implausible id: no job has it, and the lookup stays the same query. */
const NO_SUCH_ID = 'res_';

interface JobStatusRow {
  id: string;
  status: 'queued' | 'processing' | 'completed' | 'failed';
  error: string | null;
  submitted_at: Date;
  completed_reply: string | null;
}

/**
 * The reply of `GET /research-status/{id}` (spec §4.2), as JSON text. Unknown
 * ids, malformed ids and ids of other accounts take the same path (one indexed
 * lookup) and give the same 404. This is the hottest read of the service: one
 * query, and a completed reply is sent as the text it was stored as.
 */
export async function researchStatus(deps: ApiDeps, em: EntityManager, accountId: number, researchId: string): Promise<string> {
  // A NUL byte or an over-long id would make PostgreSQL raise an error (a 500);
  // such ids take the same single lookup, with an id that matches nothing.
  const lookupId = PLAUSIBLE_ID.test(researchId) ? researchId : NO_SUCH_ID;
  const [job]: JobStatusRow[] = await em
    .getConnection()
    .execute('select id, status, error, submitted_at, completed_reply from research_job where id = ? and account_id = ?', [lookupId, accountId]);
  if (!job) throw new AppError('not_found', 'No research job with this id.');
  if (job.status === 'completed') return job.completed_reply!;
  if (job.status === 'failed') return reply({ research_id: job.id, status: 'failed', error: job.error === 'timeout' ? 'timeout' : 'internal_error' });

  const now = deps.clock();
  const submittedAt = new Date(job.submitted_at);
  if (now.getTime() - submittedAt.getTime() > deps.config.researchOverdueAfterMs) {
    // The workflow enforces the deadline itself; a job still running here lost
    // its workflow or waits in a backlog: spec §3 says it has failed. (If it
    // ended meanwhile, failJob changes nothing and the re-read shows how.)
    if (await failJob(em.fork(), job.id, 'timeout', now)) await cancelResearchWorkflow(deps.temporal, job.id);
    return researchStatus(deps, em, accountId, researchId);
  }
  const [progress, median] = await Promise.all([queryProgress(deps.temporal, job.id), medianCompletionSeconds(em, accountId)]);
  return reply({
    research_id: job.id,
    status: job.status,
    estimated_seconds: progress?.isCacheHit ? 1 : remainingSeconds(median, submittedAt, now),
  });
}

const reply = (body: StatusReply) => JSON.stringify(body);

/**
 * Extension `?wait=N`: holds the reply until the job ends or N seconds pass.
 * While waiting it reads only the job's status column, often at first (a cache
 * hit ends within a few hundred milliseconds) and then less often; the full
 * reply (with the estimate's workflow query and the backstop check) is built
 * once, at the end. An unknown id ends the wait at once, with the same 404.
 */
export async function waitForStatus(
  deps: ApiDeps,
  em: EntityManager,
  accountId: number,
  researchId: string,
  waitSeconds: number,
): Promise<string> {
  const startedAt = Date.now();
  const deadline = startedAt + waitSeconds * 1000;
  const lookupId = PLAUSIBLE_ID.test(researchId) ? researchId : NO_SUCH_ID;
  for (;;) {
    const rows: Array<{ status: string }> = await em
      .fork()
      .getConnection()
      .execute('select status from research_job where id = ? and account_id = ?', [lookupId, accountId]);
    if (rows.length === 0 || hasEnded(rows[0].status)) break;
    const pollMs = waitPollMs(Date.now() - startedAt);
    if (Date.now() + pollMs > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  return researchStatus(deps, em, accountId, researchId);
}

function hasEnded(status: string | undefined): boolean {
  return status === 'completed' || status === 'failed';
}

/** Poll interval by time waited so far: 10 ms for the first second, then up to 250 ms. */
function waitPollMs(waitedMs: number): number {
  if (waitedMs < 1_000) return 10;
  if (waitedMs < 3_000) return 50;
  return 250;
}
