import { Anchor, Badge, Button, Table, Text, VisuallyHidden } from '@mantine/core';
import { Link } from 'react-router';
import type { DeliveryView } from '../../../../../domain/webhooks.ts';
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

/** An endpoint's latest deliveries: each with its attempts, the last answer and how long it took, and "Resend". */
export function DeliveriesTable({ endpointId, url }: { endpointId: number; url: string }) {
  const deliveries = useDeliveries(endpointId);
  const resend = useResendDelivery();
  if (deliveries.isPending) return <Text size="sm">Loading deliveries…</Text>;
  if (deliveries.isError) return <Text size="sm" c="red.9">Could not load the deliveries: {deliveries.error.message}</Text>;
  if (deliveries.data.length === 0) return <Text size="sm" c="dimmed">No deliveries yet. Send a test event, or finish a research job.</Text>;
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
          {deliveries.data.map((delivery) => (
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
                  <Button size="xs" variant="default" onClick={() => resend.mutate(delivery.id)} aria-label={`Resend ${delivery.eventType} ${delivery.id}`}>
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
