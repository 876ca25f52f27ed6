import { Card, Grid, Group, NativeSelect, Progress, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import type { Usage } from '../../../../../domain/dashboard/replies.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useUsage } from '../../../features/usage/api.ts';
import { UsageChart } from '../../../features/usage/components/usage-chart.tsx';
import { SOURCE_LABELS } from '../../../features/jobs/components/job-source.tsx';
import { formatDate, formatDateTime } from '../../../lib/format.ts';
import { planLabel } from '../../../../../domain/billing/plans.ts';

// A statement of the credits a person can spend: used ones are taken away (−), refunds and grants added (+).
const KIND_LABELS = { consume: 'Used', refund: 'Refunded', cycle_reset: 'Granted: new cycle', plan_change: 'Granted: plan change' } as const;
const MINUS = '\u2212';

/**
 * The change of spendable credits an entry made: the ledger stores the change of *used* credits (a job +1, a refund −1,
 * a new cycle or plan change −used) and the limit after; spendable = limit − used, so it moved by Δlimit − Δused.
 * Δlimit needs the entry before (the next one in this newest-first list); the oldest shown falls back to its own limit.
 */
function spendableChange(ledger: Usage['ledger'], index: number): number {
  const entry = ledger[index]!;
  if (entry.kind === 'consume' || entry.kind === 'refund') return -entry.usedDelta;
  const limitBefore = ledger[index + 1]?.limitAfter ?? 0;
  return entry.limitAfter - limitBefore - entry.usedDelta;
}

const signed = (value: number) => (value > 0 ? `+${value}` : value < 0 ? `${MINUS}${-value}` : '0');

export default function UsagePage() {
  const [cycle, setCycle] = useState<string | undefined>(undefined);
  const usage = useUsage(cycle);
  return (
    <>
      <PageTitle>Usage</PageTitle>
      <QueryState query={usage} label="usage">
        {(data) => (
          <>
            <CycleSummary usage={data} />
            <Grid mt="lg">
              <Grid.Col span={{ base: 12, lg: 8 }}>
                <Group justify="space-between" align="end" mb="sm">
                  <Title order={2} size="h3">
                    Credits per day
                  </Title>
                  {data.cycles.length > 1 && (
                    <NativeSelect
                      label="Billing cycle"
                      value={data.cycle.start}
                      onChange={(event) => setCycle(event.currentTarget.value)}
                      data={data.cycles.map((option) => ({ value: option.start, label: `${formatDate(option.start)} to ${formatDate(option.end)}${option.isCurrent ? ' (current)' : ''}` }))}
                    />
                  )}
                </Group>
                <UsageChart usage={data} />
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 4 }}>
                <DayTable usage={data} />
              </Grid.Col>
            </Grid>
            <Ledger usage={data} />
          </>
        )}
      </QueryState>
    </>
  );
}

function CycleSummary({ usage }: { usage: Usage }) {
  const { statement } = usage;
  const percent = statement.credit_limit === 0 ? 0 : Math.round((statement.credits_used / statement.credit_limit) * 100);
  return (
    <Card withBorder>
      <Text fw={600}>
        {statement.credits_used} of {statement.credit_limit} credits used this cycle ({percent}%)
      </Text>
      <Progress value={Math.min(100, percent)} mt="xs" aria-label="Credits used this cycle" />
      <Text size="sm" mt="xs">
        Cycle: {formatDate(statement.cycle_start)} to {formatDate(statement.cycle_end)} on the {planLabel(statement.plan)} plan
        {statement.pending_plan ? `; changes to ${statement.pending_plan} at the next cycle` : ''}. Unused credits do not roll over.
      </Text>
    </Card>
  );
}

function DayTable({ usage }: { usage: Usage }) {
  const used = usage.days.filter((day) => day.total !== 0);
  return (
    <Table aria-label="Credits per day (table)" striped>
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">Day</Table.Th>
          {usage.keys.map((key) => (
            <Table.Th scope="col" key={key.label}>
              {key.label}
            </Table.Th>
          ))}
          <Table.Th scope="col">Total</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {used.length === 0 ? (
          <Table.Tr>
            <Table.Td colSpan={usage.keys.length + 2}>
              {usage.cycle.isCurrent ? 'No credits used yet this cycle.' : 'No credits were used in this cycle.'}
              {usage.cycle.isCurrent && usage.cycles.length > 1 && ' Earlier cycles are in the Billing cycle list.'}
            </Table.Td>
          </Table.Tr>
        ) : (
          used.map((day) => (
            <Table.Tr key={day.day}>
              <Table.Th scope="row">{day.day}</Table.Th>
              {usage.keys.map((key) => (
                <Table.Td key={key.label}>{day.byKey[key.id === null ? 'none' : String(key.id)] ?? 0}</Table.Td>
              ))}
              <Table.Td>{day.total}</Table.Td>
            </Table.Tr>
          ))
        )}
      </Table.Tbody>
    </Table>
  );
}

function Ledger({ usage }: { usage: Usage }) {
  return (
    <>
      <Title order={2} size="h3" mt="xl" mb="sm">
        Ledger
      </Title>
      <Table.ScrollContainer minWidth={700}>
        <Table aria-label="Credit ledger" striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">When</Table.Th>
              <Table.Th scope="col">Entry</Table.Th>
              <Table.Th scope="col">Credits to spend</Table.Th>
              <Table.Th scope="col">Limit after</Table.Th>
              <Table.Th scope="col">Job or note</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {usage.ledger.map((entry, index) => (
              <Table.Tr key={entry.id}>
                <Table.Td>{formatDateTime(entry.at)}</Table.Td>
                <Table.Td>{KIND_LABELS[entry.kind]}</Table.Td>
                <Table.Td>{signed(spendableChange(usage.ledger, index))}</Table.Td>
                <Table.Td>{entry.limitAfter}</Table.Td>
                <Table.Td>{[entry.researchId, entry.source && SOURCE_LABELS[entry.source], entry.note].filter(Boolean).join(' · ')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
