import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import type { BillingOverview, PlanOption } from '../../../../../domain/dashboard/replies.ts';
import { FormError } from '../../../components/auth-layout.tsx';
import { formatDate } from '../../../lib/format.ts';
import { useChangePlan, type PlanChange } from '../api.ts';
import { formatMoney, planLabel } from './plan-table.tsx';

/** What a plan change does, said before it happens: the price now and the credits (upgrade), or the date (downgrade). */
export function PlanChangeDialog(props: { plan: PlanOption | null; overview: BillingOverview; onClose(): void; onDone(change: PlanChange): void }) {
  const change = useChangePlan();
  const { plan, overview } = props;
  const close = () => {
    change.reset();
    props.onClose();
  };
  const isUpgrade = plan?.upgrade != null;
  const title = !plan ? '' : isUpgrade ? `Upgrade to ${planLabel(plan.name)}` : plan.name === 'free' ? 'Cancel subscription' : `Downgrade to ${planLabel(plan.name)}`;
  return (
    <Modal opened={plan !== null} onClose={close} title={title}>
      {plan && (
        <Stack>
          {plan.upgrade ? (
            <Text>
              {plan.upgrade.via === 'checkout' ? 'You will pay on Stripe’s secure page: ' : 'Your card on file is charged '}
              {formatMoney(plan.upgrade.amountDueCents, plan.upgrade.currency)} now. This cycle you keep {plan.upgrade.creditsCarriedOver} unused
              credits and get {plan.upgrade.creditsAdded} more, {plan.upgrade.creditLimitAfter} in all. The plan changes as soon as the payment is confirmed.
            </Text>
          ) : (
            <Text>
              {plan.name === 'free' ? 'Your subscription ends' : `You move to ${planLabel(plan.name)}`} at the end of this cycle, on{' '}
              {formatDate(overview.cycle.end)}. Until then you keep the {planLabel(overview.plan)} plan and its credits. You can take this back before then.
            </Text>
          )}
          <FormError error={change.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Keep my plan
            </Button>
            <Button
              color={isUpgrade ? undefined : 'red'}
              loading={change.isPending}
              onClick={() =>
                change.mutate(plan.name, {
                  onSuccess: (result) => {
                    if (result.next === 'checkout') window.location.assign(result.url);
                    else props.onDone(result);
                    close();
                  },
                })
              }
            >
              {isUpgrade ? (plan.upgrade!.via === 'checkout' ? 'Continue to payment' : `Pay and upgrade to ${planLabel(plan.name)}`) : `Confirm: ${title}`}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
