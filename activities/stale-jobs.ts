import type { Client } from '@temporalio/client';
import { ResearchJob } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { cancelResearchWorkflow } from '../lib/research-workflow-client.ts';
import { failJob } from '../services/research/jobs.ts';

export interface StaleJobDeps {
  orm: Orm;
  clock: () => Date;
  temporal: Client;
  /** Deadline plus grace: a running job older than this is overdue. */
  staleAfterMs: number;
}

const BATCH_SIZE = 200;

export function createStaleJobActivities({ orm, clock, temporal, staleAfterMs }: StaleJobDeps) {
  return {
    /**
     * docs/api.md#job-states: a job in `processing` for more than 3 minutes becomes `failed`.
     * The workflow enforces that itself; a job still running past deadline +
     * grace has lost its workflow (never started because the API died,
     * terminated) or waits in a backlog. Either way it ends `failed`/`timeout`
     * with its refund (docs/decisions.md#the-deadline, the backstop) — a late `finishResearch` cannot
     * complete an ended job — and a still-running workflow is asked to stop.
     * Returns how many jobs it failed.
     */
    async sweepStaleJobs(): Promise<number> {
      const cutoff = new Date(clock().getTime() - staleAfterMs);
      const stale = await orm.em
        .fork()
        .find(ResearchJob, { status: { $in: ['queued', 'processing'] }, submittedAt: { $lt: cutoff } }, { fields: ['id'], limit: BATCH_SIZE });
      let failed = 0;
      for (const job of stale) {
        if (!(await failJob(orm.em.fork(), job.id, 'timeout', clock()))) continue;
        failed += 1;
        await cancelResearchWorkflow(temporal, job.id);
      }
      return failed;
    },
  };
}
