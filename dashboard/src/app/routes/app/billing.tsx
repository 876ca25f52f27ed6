import { Alert, Button, Card, Group, Stack, Text } from '@mantine/core';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { PlanOption } from '../../../../../domain/dashboard/replies.ts';
import type { PlanName } from '../../../../../domain/billing/plans.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { openBillingPortal, useBilling, useRevokePendingChange } from '../../../features/billing/api.ts';
import { PlanChangeDialog } from '../../../features/billing/components/plan-change-dialog.tsx';
import { PlanTable, planLabel } from '../../../features/billing/components/plan-table.tsx';
import { formatDate } from '../../../lib/format.ts';

function pendingNotice(checkout: string | null, awaitedFrom: PlanName | null): string | null {
  if (checkout === 'success') return 'Thank you. Stripe is confirming the payment; your plan changes here in a moment.';
  if (checkout === 'cancelled') return 'Checkout was cancelled. Nothing changed and nothing was charged.';
  if (awaitedFrom) return 'Payment sent. Waiting for Stripe to confirm it…';
  return null;
}

export default function BillingPage() {
  const [params, setParams] = useSearchParams();
  const checkout = params.get('checkout');
  // A return from Checkout or an upgrade: the plan changes when Stripe's webhook arrives, so the page watches for it.
  const [awaitedFrom, setAwaitedFrom] = useState<PlanName | null>(null);
  const [choosing, setChoosing] = useState<PlanOption | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [portalError, setPortalError] = useState<Error | null>(null);
  const billing = useBilling(awaitedFrom !== null || checkout === 'success');
  const revoke = useRevokePendingChange();

  useEffect(() => {
    if (!billing.data) return;
    // Checkout is how a Free account pays: back from it, any paid plan is the confirmed payment.
    const startedOn = awaitedFrom ?? (checkout === 'success' ? 'free' : null);
    if (startedOn !== null && billing.data.plan !== startedOn) {
      const change = billing.data.lastPlanChange;
      const carried = change ? ` (${change.carriedOver} carried over, ${change.added} added)` : '';
      setNotice(`Payment confirmed: you are on the ${planLabel(billing.data.plan)} plan with ${billing.data.credits.limit} credits this cycle${carried}.`);
      setAwaitedFrom(null);
      if (checkout) setParams({}, { replace: true });
    }
  }, [billing.data, awaitedFrom, checkout, setParams]);

  return (
    <>
      <PageTitle>Billing</PageTitle>
      <QueryState query={billing} label="billing">
        {(overview) => (
          <Stack>
            {/* One notice at a time: the confirmation replaces the "confirming" one (clearing ?checkout lags a render behind). */}
            {(notice ?? pendingNotice(checkout, awaitedFrom)) && <FormNotice>{notice ?? pendingNotice(checkout, awaitedFrom)}</FormNotice>}
            {overview.subscriptionStatus === 'missing' && (
              <Alert color="red" role="alert" title="Stripe no longer has your subscription">
                Your plan and credits stay as they are, but the plan cannot be changed here. Contact support to set the subscription up again.
              </Alert>
            )}
            {overview.subscriptionStatus === 'past_due' && (
              <Alert color="red" role="alert" title="The last payment failed">
                Update your card in the billing portal; your plan stays until Stripe gives up on the payment.
              </Alert>
            )}
            <Card withBorder>
              <Text fw={600}>
                {planLabel(overview.plan)} plan: {overview.credits.used} of {overview.credits.limit} credits used this cycle
              </Text>
              <Text size="sm">
                Cycle {formatDate(overview.cycle.start)} to {formatDate(overview.cycle.end)}. Credits reset at the start of each cycle and do not roll over.
              </Text>
              {overview.pendingChange && (
                <Group mt="sm">
                  <Text size="sm" role="status">
                    {overview.pendingChange.kind === 'cancellation'
                      ? `Your subscription ends on ${formatDate(overview.pendingChange.effectiveAt)}; then you are on the Free plan.`
                      : `You move to ${planLabel(overview.pendingChange.plan)} on ${formatDate(overview.pendingChange.effectiveAt)}.`}
                  </Text>
                  <Button size="xs" variant="default" loading={revoke.isPending} onClick={() => revoke.mutate()}>
                    Keep the {planLabel(overview.plan)} plan
                  </Button>
                </Group>
              )}
              <FormError error={revoke.error} />
            </Card>
            <PlanTable overview={overview} onChoose={setChoosing} />
            {overview.hasBillingAccount && (
              <Group>
                <Button
                  variant="default"
                  onClick={() => openBillingPortal().then(({ url }) => window.location.assign(url), setPortalError)}
                >
                  Manage cards and invoices
                </Button>
                <FormError error={portalError} />
              </Group>
            )}
            <PlanChangeDialog
              plan={choosing}
              overview={overview}
              onClose={() => setChoosing(null)}
              onDone={(change) => {
                if (change.next === 'confirming' && change.status === 'paid') setAwaitedFrom(overview.plan);
                if (change.next === 'confirming' && change.status === 'payment_pending') {
                  setNotice('The payment did not go through, so your plan is unchanged. Update your card in the billing portal and try again.');
                }
              }}
            />
          </Stack>
        )}
      </QueryState>
    </>
  );
}
