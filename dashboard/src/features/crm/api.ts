import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { Cadence, SkipReason } from '../../../../domain/crm/crm.ts';
import type { MappableProperty, MappingDecision, PropertyMapping } from '../../../../domain/crm/write-rules.ts';
import type { PlanName } from '../../../../domain/billing/plans.ts';
import type { CrmProvider } from '../../../../integrations/crm/adapter.ts';
import { api } from '../../lib/api-client.ts';

// The replies of api/dashboard/routes/crm.ts.

export interface CrmConnection {
  provider: CrmProvider;
  /** The CRM's own id of what was connected: a HubSpot portal, a Pipedrive company, a Salesforce org. */
  portalId: string;
  /** Who approved the connection in the CRM. */
  connectedUser: string;
  connectedBy: string;
  connectedAt: string;
  status: 'connected' | 'revoked' | 'disconnected';
}

export interface CrmOverview {
  plan: PlanName;
  planHasCrm: boolean;
  configured: boolean;
  /** The CRMs this server can connect, in the order offered. */
  providers: Array<{ provider: CrmProvider; label: string }>;
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
  propertyMappings: PropertyMapping[];
  reEnrichAfterDays: number | null;
  /** Salesforce: the records a run reads; null elsewhere (and Contacts in Salesforce). */
  crmObject: 'Contact' | 'Lead' | null;
}

export interface CrmRunContact {
  contactId: string;
  email: string | null;
  name: string | null;
  score: number | null;
  outcome: 'taken' | 'skipped' | 'researched' | 'failed' | 'not_researched';
  skipReason: SkipReason | null;
  researchId: string | null;
  /** Why a failed contact failed (the CRM's reason when it refused the write); null otherwise. */
  error: string | null;
  /** The contact's record in the CRM; null once another portal is connected. */
  recordUrl: string | null;
}

/** Run now's answer: the run, running or waiting its turn behind the account's running runs (`place` 1 starts next). */
export interface CrmRunStarted {
  runId: string;
  state: 'starting' | 'running' | 'queued' | 'not_run';
  place: number | null;
}

export interface CrmRun {
  id: string;
  trigger: 'schedule' | 'manual';
  status: 'queued' | 'running' | 'completed' | 'credits_exhausted' | 'not_run' | 'failed';
  /** A queued run's place among the account's runs waiting their turn (1 starts next); null otherwise. */
  place: number | null;
  reason: string | null;
  /** A running run waiting out its CRM's allowance: why, and until when; null otherwise. */
  waiting: string | null;
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
  nextRunAt: string | null;
  runs: CrmRun[];
}

/** The portal's fields that can be a lead score, and those a mapping can write, as read from the CRM at `readAt`. */
export interface CrmScoreProperties {
  provider: CrmProvider;
  portalId: string;
  /** The CRM's own lead score, or null where it has none (Pipedrive): the owner chooses one. */
  defaultScoreProperty: string | null;
  properties: Array<{ name: string; label: string }>;
  mappableProperties: MappableProperty[];
  readAt: string;
}

export interface CrmPreviewContact {
  contactId: string;
  email: string | null;
  name: string | null;
  score: number | null;
  skipped: SkipReason | null;
  duplicateOf?: string;
  /** Researched again (re-enrichment): when it was last enriched. */
  enrichedAt?: string;
  recordUrl: string;
  /** What the write rules would do to each mapped property. */
  writes: MappingDecision[];
}

export interface CrmPreview {
  taken: CrmPreviewContact[];
  skipped: CrmPreviewContact[];
  /** One per contact taken. */
  credits: number;
  /** Of those, researched again by re-enrichment. */
  reEnriched: number;
  reEnrichAfterDays: number | null;
}

export const crmQueryOptions = () => queryOptions({ queryKey: ['crm'], queryFn: () => api<CrmOverview>('/crm') });
export const useCrm = () => useQuery(crmQueryOptions());

/**
 * While a run is going (or the one just started has not ended), the page reads
 * it again every two seconds: our own records only, never the CRM.
 */
export const useCrmProduct = (productId: number, startedRunId: string | null) =>
  useQuery({
    queryKey: ['crm', productId],
    queryFn: () => api<CrmProductPage>(`/crm/products/${productId}`),
    refetchInterval: (query) => {
      const runs = query.state.data?.runs ?? [];
      const isWaiting = runs.some((run) => run.status === 'running' || run.status === 'queued') || (startedRunId !== null && !runs.some((run) => run.id === startedRunId && run.finishedAt));
      return isWaiting ? 2_000 : false;
    },
  });

export const useCrmPreview = (productId: number, enabled: boolean) =>
  useQuery({ queryKey: ['crm', productId, 'preview'], queryFn: () => api<CrmPreview>(`/crm/products/${productId}/preview`), enabled });

/**
 * The preview lists the next run's contacts: once a run this page saw going
 * (or started) has ended, the contacts it researched are no longer the next
 * run's, so the preview is read again.
 */
export function useRefreshPreviewWhenRunsEnd(productId: number, runs: CrmRun[] | undefined, startedRunId: string | null) {
  const queryClient = useQueryClient();
  const watched = useRef(new Set<string>());
  useEffect(() => {
    if (startedRunId) watched.current.add(startedRunId);
    for (const run of runs ?? []) if (!run.finishedAt) watched.current.add(run.id);
    const ended = (runs ?? []).filter((run) => run.finishedAt && watched.current.has(run.id));
    if (ended.length === 0) return;
    for (const run of ended) watched.current.delete(run.id);
    void queryClient.invalidateQueries({ queryKey: ['crm', productId, 'preview'] });
  }, [runs, startedRunId, productId, queryClient]);
}

const SCORE_PROPERTIES_KEY = ['crm', 'score-properties'];

/** Read from the CRM once and kept by the server: the page asks the server, which asks the CRM only on Reload. */
export const useCrmScoreProperties = (enabled: boolean) =>
  useQuery({ queryKey: SCORE_PROPERTIES_KEY, queryFn: () => api<CrmScoreProperties>('/crm/score-properties'), enabled, staleTime: Infinity });

export function useReloadScoreProperties() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<CrmScoreProperties>('/crm/score-properties/refresh', { body: {} }),
    onSuccess: (read) => queryClient.setQueryData(SCORE_PROPERTIES_KEY, read),
  });
}

export const startConnect = (productId: number, provider: CrmProvider) => api<{ authorizeUrl: string }>('/crm/connect', { body: { productId, provider } });

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
    mutationFn: () => api<CrmRunStarted>(`/crm/products/${productId}/run`, { body: {} }),
    // The product's runs only: the preview is read again when the run ends (useRefreshPreviewWhenRunsEnd).
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['crm', productId], exact: true }),
  });
}

/** Our fields in the CRM: ready, or the admin's steps where the CRM's API cannot create them for this user. */
export type CrmFieldsSetup = { ready: true } | { ready: false; steps: string[] };

export const useSetUpFields = (productId: number) =>
  useMutation({ mutationFn: () => api<CrmFieldsSetup>(`/crm/products/${productId}/fields`, { body: {} }) });
