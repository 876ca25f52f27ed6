import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DeliveryView, EndpointView, WebhookEvent } from '../../../../domain/webhooks.ts';
import { api } from '../../lib/api-client.ts';

export type { DeliveryView, EndpointView, WebhookEvent };

export interface WebhookList {
  endpoints: EndpointView[];
  events: WebhookEvent[];
}

export const webhooksQueryOptions = () => queryOptions({ queryKey: ['webhooks'], queryFn: () => api<WebhookList>('/webhooks') });
export const useWebhooks = () => useQuery(webhooksQueryOptions());

/** Deliveries change as they are attempted: the list refreshes every few seconds while the page is open. */
export const useDeliveries = (endpointId: number) =>
  useQuery({
    queryKey: ['webhooks', endpointId, 'deliveries'],
    queryFn: () => api<{ deliveries: DeliveryView[] }>(`/webhooks/${endpointId}/deliveries`).then((reply) => reply.deliveries),
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
