import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { BillingOverview } from '../../../../domain/dashboard/replies.ts';
import type { PlanName } from '../../../../domain/billing/plans.ts';
import { api } from '../../lib/api-client.ts';

export type PlanChange =
  | { next: 'checkout'; url: string }
  | { next: 'confirming'; status: 'paid' | 'payment_pending' }
  | { next: 'scheduled'; pendingChange: BillingOverview['pendingChange'] };

/** While a payment is being confirmed by Stripe's webhook, the page reads the plan again every two seconds. */
export const billingQueryOptions = (isAwaitingPayment: boolean) =>
  queryOptions({ queryKey: ['billing'], queryFn: () => api<BillingOverview>('/billing'), refetchInterval: isAwaitingPayment ? 2_000 : false });
export const useBilling = (isAwaitingPayment: boolean) => useQuery(billingQueryOptions(isAwaitingPayment));

export function useChangePlan() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (plan: PlanName) => api<PlanChange>('/billing/plan', { body: { plan } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['billing'] }),
  });
}

export function useRevokePendingChange() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api('/billing/pending-change/revoke', { body: {} }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['billing'] }),
  });
}

export const openBillingPortal = () => api<{ url: string }>('/billing/portal', { body: {} });
