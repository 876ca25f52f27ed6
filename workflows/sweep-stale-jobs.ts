import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { dbWrite } from './activity-profiles.ts';

const { sweepStaleJobs } = proxyActivities<Activities>(dbWrite);

/** Run by a Temporal Schedule (worker/sweep-schedule.ts), in the maintenance division: out of the default workflow list. */
export async function sweepStaleJobsWorkflow(): Promise<number> {
  return sweepStaleJobs();
}
