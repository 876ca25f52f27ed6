import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TPreferences } from '../../../../domain/dashboard/schemas.ts';
import { api } from '../../lib/api-client.ts';

export function useSavePreferences() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (preferences: TPreferences) => api<TPreferences>('/preferences', { method: 'PUT', body: preferences }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['me'] }),
  });
}
