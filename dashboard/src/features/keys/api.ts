import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TProductContext, TProductContextInput } from '../../../../domain/dashboard/schemas.ts';
import type { CreatedKey, KeyList } from '../../../../domain/dashboard/replies.ts';
import { api } from '../../lib/api-client.ts';

export const getKeys = () => api<KeyList>('/keys');
export const keysQueryOptions = () => queryOptions({ queryKey: ['keys'], queryFn: getKeys });
export const useKeys = () => useQuery(keysQueryOptions());

export const draftProductContext = (productUrl: string) =>
  api<{ productContext: TProductContext }>('/keys/draft', { body: { productUrl } }).then((reply) => reply.productContext);

export function useCreateKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (product: TProductContextInput) => api<CreatedKey>('/keys', { body: product }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['keys'] }),
  });
}

export function useUpdateProduct() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ productId, product }: { productId: number; product: TProductContextInput }) =>
      api(`/products/${productId}`, { method: 'PUT', body: product }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['keys'] }),
  });
}

export function useRevokeKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (keyId: number) => api(`/keys/${keyId}/revoke`, { body: {} }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['keys'] }),
  });
}
