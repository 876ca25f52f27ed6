import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AppConfig } from '../../../domain/dashboard/replies.ts';
import { api } from './api-client.ts';

/** The server's settings a page needs; they change only with a restart of the server. */
export const appConfigQueryOptions = () => queryOptions({ queryKey: ['config'], queryFn: () => api<AppConfig>('/config'), staleTime: Infinity });
export const useAppConfig = () => useQuery(appConfigQueryOptions());

/** The address of a trace in the trace store's UI, or null when the server names none or the job has no trace. */
export function traceAddress(config: AppConfig | undefined, traceId: string | null): string | null {
  return config?.traceUrl && traceId ? config.traceUrl.replaceAll('{trace_id}', encodeURIComponent(traceId)) : null;
}
