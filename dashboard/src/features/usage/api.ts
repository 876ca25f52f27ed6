import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Usage } from '../../../../domain/dashboard-replies.ts';
import { api } from '../../lib/api-client.ts';

export const usageQueryOptions = () => queryOptions({ queryKey: ['usage'], queryFn: () => api<Usage>('/usage') });
export const useUsage = () => useQuery(usageQueryOptions());
