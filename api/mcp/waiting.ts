import type { EntityManager } from '@mikro-orm/postgresql';
import type { ServerContext } from '@modelcontextprotocol/server';
import { hasEnded } from '../../domain/research/job-status.ts';
import type { ResearchProgress } from '../../domain/research/contract.ts';
import { findJobStatus } from '../../services/research/job-status.ts';
import { readProgress } from '../../services/research/dashboard-jobs.ts';
import { researchStatus } from '../research-status.ts';
import type { ApiDeps } from '../deps.ts';

/**
 * docs/mcp.md#long-jobs: a waiting call tells the client something at least every 5 s; the slice plus
 * the workflow query (at most 2 s, services/research/dashboard-jobs.ts) stays below that.
 */
export const PROGRESS_EVERY_MS = 2_000;

/**
 * Waits up to `waitSeconds` for a job to end, as `?wait=` does (woken by the
 * job's end, db/job-end-notifications.ts), in slices of PROGRESS_EVERY_MS:
 * after each, when the client sent a progressToken, a progress notification
 * names the stage the workflow reports. Returns the status reply's JSON text.
 */
export async function waitWithProgress(
  deps: ApiDeps,
  em: EntityManager,
  accountId: number,
  researchId: string,
  waitSeconds: number,
  ctx: ServerContext,
): Promise<string | Buffer> {
  const started = Date.now();
  const deadline = started + waitSeconds * 1000;
  const progressToken = ctx.mcpReq._meta?.progressToken;
  let current = await findJobStatus(em, accountId, researchId);
  let step = 0;
  while (current && !hasEnded(current.status) && !ctx.mcpReq.signal.aborted) {
    const remainingMs = deadline - Date.now();
    // A draining API answers with what it has: the agent's get_research reaches another API.
    if (remainingMs <= 0 || deps.isDraining?.()) break;
    if (progressToken !== undefined) {
      const progress = current.status === 'queued' ? null : await readProgress(deps.temporal, researchId);
      step += 1;
      await ctx.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken, progress: step, message: stageMessage(current.status, progress, Date.now() - started) } })
        .catch(() => undefined);
    }
    const jobEnd = deps.jobEnds.wait(researchId, Math.min(PROGRESS_EVERY_MS, Math.max(0, deadline - Date.now())));
    current = await findJobStatus(em, accountId, researchId);
    if (!current || hasEnded(current.status)) {
      jobEnd.cancel();
      break;
    }
    await jobEnd.outcome;
    current = await findJobStatus(em, accountId, researchId);
  }
  return researchStatus(deps, em, accountId, current);
}

const PART_NAMES: Record<string, string> = {
  person: 'person',
  person_posts: "person's posts",
  company: 'company',
  technologies: 'technologies',
  company_posts: "company's posts",
  news: 'news',
  decision_makers: 'decision makers',
};

/** What the job is doing, in words an agent can show its user (≤ 200 characters). */
export function stageMessage(status: string, progress: ResearchProgress | null, elapsedMs: number): string {
  const seconds = `${Math.round(elapsedMs / 1000)} s`;
  if (status === 'queued' || !progress || progress.stage === 'queued') return `Queued, waiting for a worker (${seconds})`;
  switch (progress.stage) {
    case 'loading_cache':
      return `Reading the cache (${seconds})`;
    case 'fetching_data': {
      const done = progress.partsDone.map((part) => PART_NAMES[part] ?? part);
      return `Looking up person, company and decision makers${done.length ? `; done: ${done.join(', ')}` : ''} (${seconds})`.slice(0, 200);
    }
    case 'generating_insights':
      return `Writing insights for your product (${seconds})`;
    case 'storing_results':
    case 'done':
      return `Storing the results (${seconds})`;
  }
}
