import { Anchor, Badge, Button, Group, NativeSelect, Pagination, Stack, Table, Text, VisuallyHidden } from '@mantine/core';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { DELIVERY_PAGE_SIZES, DELIVERY_STATUSES, type DeliveryPage, type DeliveryView, type TDeliveryFilter } from '../../../../../domain/webhooks/webhooks.ts';
import { formatDateTime, formatDuration } from '../../../lib/format.ts';
import { useDeliveries, useResendDelivery } from '../api.ts';

// Filled badges in the darkest shades: white text on them meets WCAG AA's 4.5:1.
const STATUS: Record<DeliveryView['status'], { label: string; color: string }> = {
  pending: { label: 'Delivering', color: 'blue.9' },
  delivered: { label: 'Delivered', color: 'teal.9' },
  failed: { label: 'Failed', color: 'red.9' },
  skipped: { label: 'Skipped', color: 'gray.7' },
};

const lastAnswer = (delivery: DeliveryView) => (delivery.lastStatusCode !== null ? String(delivery.lastStatusCode) : (delivery.lastError ?? '—'));

/** An endpoint's deliveries, page by page and by status: each with its attempts, the last answer and how long it took, and "Resend". */
export function DeliveriesTable({ endpointId, url }: { endpointId: number; url: string }) {
  const [filter, setFilter] = useState<TDeliveryFilter>({ page: 1, pageSize: DELIVERY_PAGE_SIZES[0] });
  const deliveries = useDeliveries(endpointId, filter);
  const lastPage = deliveries.data?.pageCount;
  // Past the last page (deliveries were deleted meanwhile by retention): back to the last one.
  useEffect(() => {
    if (lastPage !== undefined && filter.page > lastPage) setFilter((current) => ({ ...current, page: lastPage }));
  }, [lastPage, filter.page]);
  if (deliveries.isPending) return <Text size="sm">Loading deliveries…</Text>;
  if (deliveries.isError) return <Text size="sm" c="red.9">Could not load the deliveries: {deliveries.error.message}</Text>;
  const page = deliveries.data;
  if (page.total === 0 && !filter.status) return <Text size="sm" c="dimmed">No deliveries yet. Send a test event, or finish a research job.</Text>;
  return (
    <Stack gap="xs">
      <Group gap="sm" align="flex-end">
        <NativeSelect
          label="Status"
          size="xs"
          value={filter.status ?? ''}
          onChange={(event) => setFilter({ ...filter, page: 1, status: (event.currentTarget.value || undefined) as TDeliveryFilter['status'] })}
          data={[{ value: '', label: 'Any status' }, ...DELIVERY_STATUSES.map((status) => ({ value: status, label: STATUS[status].label }))]}
        />
        <NativeSelect
          label="Per page"
          size="xs"
          value={String(filter.pageSize)}
          onChange={(event) => setFilter({ ...filter, page: 1, pageSize: Number(event.currentTarget.value) })}
          data={DELIVERY_PAGE_SIZES.map(String)}
        />
      </Group>
      <DeliveryRows page={page} url={url} />
      <Group justify="space-between">
        <Text size="sm" role="status">
          {summary(page, filter)}
        </Text>
        {page.pageCount > 1 && (
          <Pagination
            size="sm"
            total={page.pageCount}
            value={page.page}
            onChange={(value) => setFilter({ ...filter, page: value })}
            getControlProps={(control) => ({ 'aria-label': `${control} page of deliveries` })}
            getItemProps={(item) => ({ 'aria-label': `Deliveries page ${item}` })}
          />
        )}
      </Group>
    </Stack>
  );
}

/** "Showing 26–50 of 60 failed deliveries", or why there is nothing to show. */
function summary(page: DeliveryPage, filter: TDeliveryFilter): string {
  const deliveries = (count: number) => `${filter.status ? `${filter.status} ` : ''}${count === 1 ? 'delivery' : 'deliveries'}`;
  if (page.total === 0) return `No ${deliveries(0)}. Choose “Any status” to see the others.`;
  if (page.deliveries.length === 0) return `Nothing on page ${page.page}: ${page.total} ${deliveries(page.total)} on ${page.pageCount} ${page.pageCount === 1 ? 'page' : 'pages'}.`;
  const first = (page.page - 1) * page.pageSize + 1;
  return `Showing ${first}–${first + page.deliveries.length - 1} of ${page.total} ${deliveries(page.total)}`;
}

function DeliveryRows({ page, url }: { page: DeliveryPage; url: string }) {
  const resend = useResendDelivery();
  if (page.deliveries.length === 0) return null;
  return (
    <Table.ScrollContainer minWidth={700}>
      <Table aria-label={`Deliveries to ${url}`} striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Event</Table.Th>
            <Table.Th scope="col">Job</Table.Th>
            <Table.Th scope="col">Status</Table.Th>
            <Table.Th scope="col">Attempts</Table.Th>
            <Table.Th scope="col">Last answer</Table.Th>
            <Table.Th scope="col">Duration</Table.Th>
            <Table.Th scope="col">Created</Table.Th>
            <Table.Th scope="col">
              <VisuallyHidden>Actions</VisuallyHidden>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {page.deliveries.map((delivery) => (
            <Table.Tr key={delivery.id}>
              <Table.Td>{delivery.eventType}</Table.Td>
              <Table.Td>
                {delivery.researchId ? (
                  <Anchor component={Link} to={`/jobs/${delivery.researchId}`}>
                    {delivery.researchId}
                  </Anchor>
                ) : (
                  '—'
                )}
              </Table.Td>
              <Table.Td>
                <Badge color={STATUS[delivery.status].color} variant="filled">
                  {STATUS[delivery.status].label}
                </Badge>
              </Table.Td>
              <Table.Td>{delivery.attempts}</Table.Td>
              <Table.Td>{lastAnswer(delivery)}</Table.Td>
              <Table.Td>{formatDuration(delivery.lastDurationMs)}</Table.Td>
              <Table.Td>{formatDateTime(delivery.createdAt)}</Table.Td>
              <Table.Td>
                {delivery.status !== 'pending' && (
                  <Button
                    size="xs"
                    variant="default"
                    loading={resend.isPending && resend.variables === delivery.id}
                    onClick={() => resend.mutate(delivery.id)}
                    aria-label={`Resend ${delivery.eventType} ${delivery.id}`}
                  >
                    Resend
                  </Button>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
