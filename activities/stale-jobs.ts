import type { Client } from '@temporalio/client';
import { ResearchJob } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { isWorkflowRunning } from '../lib/research-workflow-client.ts';
import { failJob } from '../services/research-jobs.ts';

export interface StaleJobDeps {
  orm: Orm;
  clock: () => Date;
  temporal: Client;
  /** Deadline plus grace: older running jobs must still have a running workflow. */
  staleAfterMs: number;
}

const BATCH_SIZE = 200;

export function createStaleJobActivities({ orm, clock, temporal, staleAfterMs }: StaleJobDeps) {
  return {
    /**
     * A job whose workflow never started (the API died between taking the credit
     * and starting it) or was terminated would stay `processing` forever: end it
     * `failed`/`timeout` and refund it (DECISIONS.md backstop). Returns how many.
     */
    async sweepStaleJobs(): Promise<number> {
      const cutoff = new Date(clock().getTime() - staleAfterMs);
      const stale = await orm.em
        .fork()
        .find(ResearchJob, { status: { $in: ['queued', 'processing'] }, submittedAt: { $lt: cutoff } }, { fields: ['id'], limit: BATCH_SIZE });
      let failed = 0;
      for (const job of stale) {
        if (await isWorkflowRunning(temporal, job.id)) continue;
        if (await failJob(orm.em.fork(), job.id, 'timeout', clock())) failed += 1;
      }
      return failed;
    },
  };
}
