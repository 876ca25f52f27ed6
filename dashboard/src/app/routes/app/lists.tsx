import { Anchor, Progress, Stack, Table, Text } from '@mantine/core';
import { Link, useNavigate } from 'react-router';
import { formatCount } from '../../../../../domain/lists/fields.ts';
import type { ListSummary } from '../../../../../domain/lists/lists.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useLists } from '../../../features/lists/api.ts';
import { LimitsNotice } from '../../../features/lists/components/limits-notice.tsx';
import { ListStatusBadge, progressName, progressPercent } from '../../../features/lists/components/list-run.tsx';
import { NewListCard } from '../../../features/lists/components/new-list-card.tsx';
import { formatDateTime } from '../../../lib/format.ts';

/** The Lists page: research a whole CSV of prospects, on the same pipeline and credits as the API. */
export default function ListsPage() {
  const lists = useLists();
  const navigate = useNavigate();
  return (
    <>
      <PageTitle>Lists</PageTitle>
      <Stack maw={1100}>
        <Text>
          Research a whole spreadsheet of prospects at once: a conference's attendees, an export from a prospecting tool. Each row is one research job
          and one credit, with the same results as the API; download them as a CSV for your spreadsheet.
        </Text>
        <QueryState query={lists} label="your lists">
          {({ lists: items, limits }) => (
            <>
              <LimitsNotice limits={limits} />
              <NewListCard onCreated={(list) => void navigate(`/lists/${list.id}`)} />
              <ListsTable lists={items} />
            </>
          )}
        </QueryState>
      </Stack>
    </>
  );
}

function ListsTable({ lists }: { lists: ListSummary[] }) {
  if (lists.length === 0) {
    return <Text c="dimmed">No lists yet. Upload a CSV or paste addresses above to research a whole list at once.</Text>;
  }
  return (
    <Table striped aria-label="Your lists">
      <Table.Thead>
        <Table.Tr>
          <Table.Th scope="col">List</Table.Th>
          <Table.Th scope="col">Status</Table.Th>
          <Table.Th scope="col">Progress</Table.Th>
          <Table.Th scope="col">Created</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {lists.map((list) => (
          <Table.Tr key={list.id}>
            <Table.Td>
              <Anchor component={Link} to={`/lists/${list.id}`}>
                {list.name}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <ListStatusBadge status={list.status} />
            </Table.Td>
            <Table.Td miw={180}>
              {list.status === 'draft' ? (
                `${formatCount(list.counts.total)} ${list.counts.total === 1 ? 'row' : 'rows'}, not started`
              ) : (
                <>
                  <Progress value={progressPercent(list.status, list.counts)} size="sm" aria-label={progressName(`Progress of ${list.name}`, list.status)} />
                  <Text size="xs">
                    {formatCount(list.counts.done)} of {formatCount(list.counts.toRun)} done
                    {list.counts.failed > 0 && `, ${formatCount(list.counts.failed)} failed`}
                  </Text>
                </>
              )}
            </Table.Td>
            <Table.Td>{formatDateTime(list.createdAt)}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
