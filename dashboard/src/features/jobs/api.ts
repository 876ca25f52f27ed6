import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { TJobFilter } from '../../../../domain/dashboard/schemas.ts';
import type { JobDetail, JobPage } from '../../../../domain/dashboard/replies.ts';
import { hasEnded } from '../../../../domain/research/job-status.ts';
import { api, ApiError } from '../../lib/api-client.ts';

const LIVE_REFRESH_MS = 1_000;

export function getJobs(filter: TJobFilter) {
  const query = new URLSearchParams({ page: String(filter.page) });
  if (filter.status) query.set('status', filter.status);
  if (filter.keyId) query.set('keyId', String(filter.keyId));
  return api<JobPage>(`/jobs?${query}`);
}
export const jobsQueryOptions = (filter: TJobFilter) => queryOptions({ queryKey: ['jobs', filter], queryFn: () => getJobs(filter), placeholderData: keepPreviousData });
export const useJobs = (filter: TJobFilter) => useQuery(jobsQueryOptions(filter));

/** A running job is read again every second, so the page turns into the result when it ends, without a reload. */
export const jobQueryOptions = (researchId: string) =>
  queryOptions({
    queryKey: ['job', researchId],
    queryFn: () => api<JobDetail>(`/jobs/${encodeURIComponent(researchId)}`),
    // A job that is not there (404: unknown, or another account's) is not asked for again and again.
    refetchInterval: (query) => {
      if (query.state.error instanceof ApiError && query.state.error.status < 500) return false;
      return query.state.data && hasEnded(query.state.data.status) ? false : LIVE_REFRESH_MS;
    },
  });
export const useJob = (researchId: string) => useQuery(jobQueryOptions(researchId));
