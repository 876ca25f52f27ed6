import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Cadence, SkipReason } from '../../../../domain/crm.ts';
import type { PlanName } from '../../../../domain/plans.ts';
import { api } from '../../lib/api-client.ts';

// The replies of api/dashboard/routes/crm.ts.

export interface CrmConnection {
  portalId: number;
  hubUser: string;
  connectedBy: string;
  connectedAt: string;
  status: 'connected' | 'revoked' | 'disconnected';
}

export interface CrmOverview {
  plan: PlanName;
  planHasCrm: boolean;
  configured: boolean;
  connection: CrmConnection | null;
  lostConnection: CrmConnection | null;
  products: Array<{ id: number; name: string; active: boolean; pausedReason: string | null; hasSettings: boolean }>;
}

export interface CrmSettingsValues {
  cadence: Cadence;
  hourUtc: number;
  scoreProperty: string;
  minScore: number;
  skipFreeMail: boolean;
  skipRoleBased: boolean;
  researchLimit: number;
  chatWebhookUrl: string | null;
  digestEnabled: boolean;
  digestEmail: string | null;
  active: boolean;
}

export interface CrmRunContact {
  contactId: string;
  email: string | null;
  name: string | null;
  score: number | null;
  outcome: 'taken' | 'skipped' | 'researched' | 'failed' | 'not_researched';
  skipReason: SkipReason | null;
  researchId: string | null;
  hubspotUrl: string | null;
}

export interface CrmRun {
  id: string;
  trigger: 'schedule' | 'manual';
  status: 'running' | 'completed' | 'credits_exhausted' | 'not_run' | 'failed';
  reason: string | null;
  counts: { found: number; skipped: Partial<Record<SkipReason, number>>; researched: number; failed: number; creditsUsed: number };
  startedAt: string;
  finishedAt: string | null;
  contacts: CrmRunContact[];
}

export interface CrmProductPage {
  product: { id: number; name: string };
  saved: boolean;
  settings: CrmSettingsValues & { productId: number; pausedReason: string | null };
  chatWebhookDisabled: { at: string; reason: string } | null;
  numberProperties: Array<{ name: string; label: string }> | null;
  nextRunAt: string | null;
  runs: CrmRun[];
}

export interface CrmPreviewContact {
  contactId: string;
  email: string | null;
  name: string | null;
  score: number | null;
  skipped: SkipReason | null;
  hubspotUrl: string;
}

export const crmQueryOptions = () => queryOptions({ queryKey: ['crm'], queryFn: () => api<CrmOverview>('/crm') });
export const useCrm = () => useQuery(crmQueryOptions());

/** While a run is going (or the one just started has not ended), the page reads it again every two seconds. */
export const useCrmProduct = (productId: number, startedRunId: string | null) =>
  useQuery({
    queryKey: ['crm', productId],
    queryFn: () => api<CrmProductPage>(`/crm/products/${productId}`),
    refetchInterval: (query) => {
      const runs = query.state.data?.runs ?? [];
      const isWaiting = runs.some((run) => run.status === 'running') || (startedRunId !== null && !runs.some((run) => run.id === startedRunId && run.finishedAt));
      return isWaiting ? 2_000 : false;
    },
  });

export const useCrmPreview = (productId: number, enabled: boolean) =>
  useQuery({ queryKey: ['crm', productId, 'preview'], queryFn: () => api<{ taken: CrmPreviewContact[]; skipped: CrmPreviewContact[] }>(`/crm/products/${productId}/preview`), enabled });

export const startConnect = (productId: number) => api<{ authorizeUrl: string }>('/crm/connect', { body: { productId } });

export function useDisconnect() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ disconnected: true }>('/crm/disconnect', { body: {} }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['crm'] }),
  });
}

export function useSaveCrmSettings(productId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: CrmSettingsValues) => api(`/crm/products/${productId}/settings`, { method: 'PUT', body: settings }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['crm'] }),
  });
}

export function useRunNow(productId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ runId: string }>(`/crm/products/${productId}/run`, { body: {} }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['crm', productId] }),
  });
}
