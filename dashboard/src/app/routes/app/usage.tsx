import { Card, Grid, Progress, Table, Text, Title } from '@mantine/core';
import type { Usage } from '../../../../../domain/dashboard-replies.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useUsage } from '../../../features/usage/api.ts';
import { UsageChart } from '../../../features/usage/components/usage-chart.tsx';
import { formatDate, formatDateTime } from '../../../lib/format.ts';

const KIND_LABELS = { consume: 'Consumed', refund: 'Refunded', cycle_reset: 'Cycle reset', plan_change: 'Plan change' } as const;

export default function UsagePage() {
  const usage = useUsage();
  return (
    <>
      <PageTitle>Usage</PageTitle>
      <QueryState query={usage} label="usage">
        {(data) => (
          <>
            <CycleSummary usage={data} />
            <Grid mt="lg">
              <Grid.Col span={{ base: 12, lg: 8 }}>
                <Title order={2} size="h3" mb="sm">
                  Credits per day
                </Title>
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
        Cycle: {formatDate(statement.cycle_start)} to {formatDate(statement.cycle_end)} on the {statement.plan} plan
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
            <Table.Td colSpan={usage.keys.length + 2}>No credits used yet this cycle.</Table.Td>
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
              <Table.Th scope="col">Credits</Table.Th>
              <Table.Th scope="col">Limit after</Table.Th>
              <Table.Th scope="col">Job or note</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {usage.ledger.map((entry) => (
              <Table.Tr key={entry.id}>
                <Table.Td>{formatDateTime(entry.at)}</Table.Td>
                <Table.Td>{KIND_LABELS[entry.kind]}</Table.Td>
                <Table.Td>{entry.usedDelta > 0 ? `+${entry.usedDelta}` : entry.usedDelta}</Table.Td>
                <Table.Td>{entry.limitAfter}</Table.Td>
                <Table.Td>{[entry.researchId, entry.note].filter(Boolean).join(' · ')}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </>
  );
}
