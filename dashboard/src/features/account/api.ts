import { queryOptions, useQuery } from '@tanstack/react-query';
import type { Me } from '../../../../domain/dashboard/replies.ts';
import { api } from '../../lib/api-client.ts';

export const getMe = () => api<Me>('/me');
export const meQueryOptions = () => queryOptions({ queryKey: ['me'], queryFn: getMe });
export const useMe = () => useQuery(meQueryOptions());
