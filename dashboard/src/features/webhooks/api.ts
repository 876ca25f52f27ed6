import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DeliveryPage, DeliveryView, EndpointView, TDeliveryFilter, WebhookEvent } from '../../../../domain/webhooks/webhooks.ts';
import { api } from '../../lib/api-client.ts';

export type { DeliveryPage, DeliveryView, EndpointView, TDeliveryFilter, WebhookEvent };

export interface WebhookList {
  endpoints: EndpointView[];
  events: WebhookEvent[];
}

export const webhooksQueryOptions = () => queryOptions({ queryKey: ['webhooks'], queryFn: () => api<WebhookList>('/webhooks') });
export const useWebhooks = () => useQuery(webhooksQueryOptions());

/**
 * One page of an endpoint's deliveries. They change as they are attempted: the
 * page refreshes every few seconds while open, and keeps showing the rows it
 * has while another page or status loads.
 */
export const useDeliveries = (endpointId: number, filter: TDeliveryFilter) =>
  useQuery({
    queryKey: ['webhooks', endpointId, 'deliveries', filter],
    queryFn: () => {
      const query = new URLSearchParams({ page: String(filter.page), pageSize: String(filter.pageSize) });
      if (filter.status) query.set('status', filter.status);
      return api<DeliveryPage>(`/webhooks/${endpointId}/deliveries?${query}`);
    },
    placeholderData: keepPreviousData,
    refetchInterval: 3_000,
  });

function useWebhookMutation<TInput, TResult>(request: (input: TInput) => Promise<TResult>) {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: request, onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks'] }) });
}

export const useAddEndpoint = () =>
  useWebhookMutation((input: { url: string; events: WebhookEvent[] }) => api<{ endpoint: EndpointView; secret: string }>('/webhooks', { body: input }));
export const useUpdateEndpoint = () =>
  useWebhookMutation(({ endpointId, ...change }: { endpointId: number; events?: WebhookEvent[]; isPaused?: boolean }) =>
    api(`/webhooks/${endpointId}`, { method: 'PATCH', body: change }),
  );
export const useDeleteEndpoint = () => useWebhookMutation((endpointId: number) => api(`/webhooks/${endpointId}`, { method: 'DELETE' }));
export const useRevealSecret = () => useMutation({ mutationFn: (endpointId: number) => api<{ secret: string }>(`/webhooks/${endpointId}/secret`, { body: {} }) });
export const useRotateSecret = () => useWebhookMutation((endpointId: number) => api<{ secret: string }>(`/webhooks/${endpointId}/rotate`, { body: {} }));
export const useSendTestEvent = () => useWebhookMutation((endpointId: number) => api<{ deliveryId: string }>(`/webhooks/${endpointId}/test`, { body: {} }));
export const useResendDelivery = () => useWebhookMutation((deliveryId: string) => api(`/webhook-deliveries/${encodeURIComponent(deliveryId)}/resend`, { body: {} }));
