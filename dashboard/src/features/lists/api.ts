import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { KeyList } from '../../../../domain/dashboard/replies.ts';
import type { ColumnMapping, ListPreview } from '../../../../domain/lists/fields.ts';
import { isListQueued, isListRunning, type ListLimits, type ListProgress, type ListQueueWait, type ListRowReply, type ListSummary, type TListPatch } from '../../../../domain/lists/lists.ts';
import { api } from '../../lib/api-client.ts';

// The Lists page's calls (docs/lists.md#using-it): a list is uploaded as a
// draft, mapped and previewed by the server, then started; its page polls it.

export interface ListDraft extends ListSummary {
  headers: string[];
  mapping: ColumnMapping;
  skipFlagged: boolean;
  preview: ListPreview | null;
  mappingError: string | null;
  /** The first data rows, when the server sends them: what each column holds. */
  sampleRows?: string[][];
}

export interface ListDetail {
  list: ListDraft | ListSummary;
  progress: ListProgress;
  rows: ListRowReply[];
  /** While queued: its place, the account's rows ahead and when it should start. */
  queue: ListQueueWait | null;
}

export const isDraft = (list: ListDraft | ListSummary): list is ListDraft => list.status === 'draft';

export const listsQueryOptions = () => queryOptions({ queryKey: ['lists'], queryFn: () => api<{ lists: ListSummary[]; limits: ListLimits }>('/lists') });
const isUnderway = (list: ListSummary) => isListRunning(list.status) || isListQueued(list.status);

/** While a list runs or waits, its progress in the table (and the running-list limit) refresh every five seconds. */
export const useLists = () => useQuery({ ...listsQueryOptions(), refetchInterval: (query) => (query.state.data?.lists.some(isUnderway) ? 5_000 : false) });

/** A running or queued list is polled every two seconds; a draft or finished one is read once. */
export const useList = (listId: string) =>
  useQuery({
    queryKey: ['lists', listId],
    queryFn: () => api<ListDetail>(`/lists/${encodeURIComponent(listId)}`),
    refetchInterval: (query) => (query.state.data && isUnderway(query.state.data.list) ? 2_000 : false),
    retry: (count, error) => !('status' in error && error.status === 404) && count < 2,
  });

/** The keys to choose from: their product context and the account's language apply to every row. */
export const useListKeys = () => useQuery({ queryKey: ['keys'], queryFn: () => api<KeyList>('/keys') });

function useListMutation<TInput, TResult>(request: (input: TInput) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: request, onSettled: () => queryClient.invalidateQueries({ queryKey: ['lists'] }) });
}

export const useUploadList = () =>
  useListMutation((file: File) => api<{ list: ListDraft }>(`/lists?name=${encodeURIComponent(file.name)}`, { body: file }));
export const usePasteList = () => useListMutation((pasted: string) => api<{ list: ListDraft }>('/lists', { body: { pasted } }));
/**
 * The reply carries the recomputed preview and replaces the draft. Changes run
 * one after another (one scope per list), so the last choice is the last answer.
 */
export function useUpdateList(listId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    scope: { id: `list-update-${listId}` },
    mutationFn: (patch: TListPatch) => api<{ list: ListDraft }>(`/lists/${encodeURIComponent(listId)}`, { method: 'PATCH', body: patch }),
    onSuccess: ({ list }) => queryClient.setQueryData<ListDetail>(['lists', listId], (detail) => (detail ? { ...detail, list } : detail)),
  });
}
export const useStartList = (listId: string) =>
  useListMutation((expectedRows: number) => api<{ list: ListSummary }>(`/lists/${encodeURIComponent(listId)}/start`, { body: { expectedRows } }));
export const useCancelList = (listId: string) => useListMutation(() => api<{ list: ListSummary }>(`/lists/${encodeURIComponent(listId)}/cancel`, { body: {} }));
/** The deleted draft's own query is left alone (re-read it would be a 404 under the page); the page leaves for the list of lists. */
export function useDeleteList(listId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api(`/lists/${encodeURIComponent(listId)}`, { method: 'DELETE' }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['lists'], exact: true }),
  });
}

export const resultsUrl = (listId: string, format: 'csv' | 'jsonl') => `/app/api/lists/${encodeURIComponent(listId)}/results.${format}`;
