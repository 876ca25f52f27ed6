import { Button, Table, Text } from '@mantine/core';
import type { BillingOverview, PlanOption } from '../../../../../domain/dashboard/replies.ts';
import type { PlanName } from '../../../../../domain/billing/plans.ts';

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');
const label = (name: PlanName) => name[0]!.toUpperCase() + name.slice(1);
export const formatMoney = (cents: number, currency: string) =>
  new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);

/** The four plans side by side (docs/billing.md#plans), with what changing to each costs now and gives. */
export function PlanTable({ overview, onChoose }: { overview: BillingOverview; onChoose(plan: PlanOption): void }) {
  const rows: Array<[string, (plan: PlanOption) => string]> = [
    ['Price per month', (plan) => (plan.monthlyPriceUsd === 0 ? 'Free' : `$${plan.monthlyPriceUsd}`)],
    ['Credits per month', (plan) => String(plan.creditsPerCycle)],
    ['API keys', (plan) => (plan.maxActiveKeys === null ? 'Unlimited' : String(plan.maxActiveKeys))],
    ['Decision makers', (plan) => yesNo(plan.hasDecisionMakers)],
    ['Company news', (plan) => yesNo(plan.hasCompanyNews)],
    ['CRM integration', (plan) => yesNo(plan.hasCrmIntegration)],
  ];
  return (
    <Table.ScrollContainer minWidth={760}>
      <Table aria-label="Plans" withColumnBorders>
        <Table.Thead>
          <Table.Tr>
            <Table.Td />
            {overview.plans.map((plan) => (
              <Table.Th scope="col" key={plan.name}>
                {label(plan.name)}
                {plan.isCurrent ? ' (current)' : ''}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map(([name, value]) => (
            <Table.Tr key={name}>
              <Table.Th scope="row">{name}</Table.Th>
              {overview.plans.map((plan) => (
                <Table.Td key={plan.name}>{value(plan)}</Table.Td>
              ))}
            </Table.Tr>
          ))}
          <Table.Tr>
            <Table.Th scope="row">Change now</Table.Th>
            {overview.plans.map((plan) => (
              <Table.Td key={plan.name}>
                <PlanAction plan={plan} overview={overview} onChoose={onChoose} />
              </Table.Td>
            ))}
          </Table.Tr>
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function PlanAction({ plan, overview, onChoose }: { plan: PlanOption; overview: BillingOverview; onChoose(plan: PlanOption): void }) {
  if (plan.isCurrent) return <Text size="sm">Your plan</Text>;
  if (!overview.isBillingConfigured) return <Text size="sm">Payments are not set up on this server.</Text>;
  if (overview.subscriptionStatus === 'missing') return <Text size="sm">Not available until support restores the subscription.</Text>;
  if (plan.upgrade) {
    return (
      <>
        <Text size="sm">
          Pay {formatMoney(plan.upgrade.amountDueCents, plan.upgrade.currency)} now; {plan.upgrade.creditLimitAfter} credits this cycle.
        </Text>
        <Button size="xs" mt="xs" onClick={() => onChoose(plan)}>
          Upgrade to {label(plan.name)}
        </Button>
      </>
    );
  }
  if (overview.pendingChange?.plan === plan.name) return <Text size="sm">Starts next cycle</Text>;
  if (overview.plan === 'free') return null;
  return (
    <Button size="xs" variant="default" onClick={() => onChoose(plan)}>
      {plan.name === 'free' ? 'Cancel subscription' : `Downgrade to ${label(plan.name)}`}
    </Button>
  );
}

export { label as planLabel };
