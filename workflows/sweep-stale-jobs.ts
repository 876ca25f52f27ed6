import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { dbWrite } from './activity-profiles.ts';

const { sweepStaleJobs } = proxyActivities<Activities>(dbWrite);

/** Run by a Temporal Schedule (worker/sweep-schedule.ts), in the maintenance division: out of the default workflow list. */
export async function sweepStaleJobsWorkflow(): Promise<number> {
  return sweepStaleJobs();
}

// Under Worker Versioning, moves to the current build at its next task rather than holding an old build up (worker/versioning.ts).
setWorkflowOptions({ versioningBehavior: 'AUTO_UPGRADE' }, sweepStaleJobsWorkflow);
