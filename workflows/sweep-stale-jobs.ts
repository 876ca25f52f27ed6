import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { dbWrite } from './activity-profiles.ts';

const { sweepStaleJobs } = proxyActivities<Activities>(dbWrite);

/** Run by a Temporal Schedule every minute (worker/sweep-schedule.ts). */
export async function sweepStaleJobsWorkflow(): Promise<number> {
  return sweepStaleJobs();
}
