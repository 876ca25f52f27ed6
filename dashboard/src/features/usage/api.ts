import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { Usage } from '../../../../domain/dashboard/replies.ts';
import { api } from '../../lib/api-client.ts';

/** The current cycle without `cycle`; an earlier one by its start. */
export const usageQueryOptions = (cycle?: string) =>
  queryOptions({ queryKey: ['usage', cycle ?? 'current'], queryFn: () => api<Usage>(cycle ? `/usage?cycle=${encodeURIComponent(cycle)}` : '/usage'), placeholderData: keepPreviousData });
export const useUsage = (cycle?: string) => useQuery(usageQueryOptions(cycle));
