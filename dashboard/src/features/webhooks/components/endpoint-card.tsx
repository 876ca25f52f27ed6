import { Badge, Button, Card, Code, Group, Modal, Stack, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { useDeleteEndpoint, useRevealSecret, useRotateSecret, useSendTestEvent, useUpdateEndpoint, type EndpointView } from '../api.ts';
import { DeliveriesTable } from './deliveries-table.tsx';

const STATUS: Record<EndpointView['status'], { label: string; color: string }> = {
  active: { label: 'Active', color: 'teal.9' },
  paused: { label: 'Paused', color: 'gray.7' },
  disabled: { label: 'Disabled', color: 'red.9' },
};

const DISABLED_BECAUSE: Record<NonNullable<EndpointView['disabledReason']>, string> = {
  gone: 'it answered 410 Gone',
  failing: 'every delivery to it failed for 3 days',
};

/** One endpoint: its events and state, its signing secret on demand, pause/resume, a test event, and its deliveries. */
export function EndpointCard({ endpoint }: { endpoint: EndpointView }) {
  const headingId = `endpoint-${endpoint.id}`;
  const [secret, setSecret] = useState<string | null>(null);
  const reveal = useRevealSecret();
  const rotate = useRotateSecret();
  const test = useSendTestEvent();
  const update = useUpdateEndpoint();
  const [isDeleting, setIsDeleting] = useState(false);
  const error = reveal.error ?? rotate.error ?? test.error ?? update.error;
  const isActive = endpoint.status === 'active';

  return (
    <Card withBorder component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Title order={2} size="h4" id={headingId} style={{ wordBreak: 'break-all' }}>
            {endpoint.url}
          </Title>
          <Badge color={STATUS[endpoint.status].color} variant="filled">
            {STATUS[endpoint.status].label}
          </Badge>
        </Group>
        <Text size="sm">Events: {endpoint.events.join(', ')}</Text>
        {endpoint.status === 'disabled' && endpoint.disabledReason && (
          <Text size="sm" c="red.9">
            Disabled on {formatDateTime(endpoint.disabledAt)} because {DISABLED_BECAUSE[endpoint.disabledReason]}. Resume it once it works again.
          </Text>
        )}
        {endpoint.previousSecretExpiresAt && (
          <Text size="sm">The previous secret also signs deliveries until {formatDateTime(endpoint.previousSecretExpiresAt)}.</Text>
        )}
        {secret && (
          <Text size="sm">
            Signing secret: <Code>{secret}</Code>
          </Text>
        )}
        <Group gap="xs">
          {secret ? (
            <Button variant="default" size="xs" onClick={() => setSecret(null)}>
              Hide secret
            </Button>
          ) : (
            <Button variant="default" size="xs" loading={reveal.isPending} onClick={() => reveal.mutate(endpoint.id, { onSuccess: (reply) => setSecret(reply.secret) })}>
              Reveal secret
            </Button>
          )}
          <Button variant="default" size="xs" loading={rotate.isPending} onClick={() => rotate.mutate(endpoint.id, { onSuccess: (reply) => setSecret(reply.secret) })}>
            Rotate secret
          </Button>
          <Button variant="default" size="xs" disabled={!isActive} loading={test.isPending} onClick={() => test.mutate(endpoint.id)}>
            Send test event
          </Button>
          <Button variant="default" size="xs" loading={update.isPending} onClick={() => update.mutate({ endpointId: endpoint.id, isPaused: isActive })}>
            {isActive ? 'Pause' : 'Resume'}
          </Button>
          <Button variant="default" color="red" size="xs" onClick={() => setIsDeleting(true)}>
            Delete endpoint
          </Button>
        </Group>
        {rotate.isSuccess && <FormNotice>New secret created. The old one keeps signing beside it for 24 hours.</FormNotice>}
        {test.isSuccess && <FormNotice>Test event queued. It appears below in a moment.</FormNotice>}
        <FormError error={error} />
        <Title order={3} size="h5">
          Deliveries
        </Title>
        <DeliveriesTable endpointId={endpoint.id} url={endpoint.url} />
      </Stack>
      <DeleteEndpointDialog endpoint={isDeleting ? endpoint : null} onClose={() => setIsDeleting(false)} />
    </Card>
  );
}

function DeleteEndpointDialog({ endpoint, onClose }: { endpoint: EndpointView | null; onClose(): void }) {
  const remove = useDeleteEndpoint();
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Modal opened={endpoint !== null} onClose={close} title="Delete webhook endpoint">
      {endpoint && (
        <Stack>
          <Text style={{ wordBreak: 'break-all' }}>
            {endpoint.url} gets no more deliveries, not even the retries still pending, and its delivery history and signing secrets are
            deleted. This cannot be undone.
          </Text>
          <FormError error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={close}>
              Cancel
            </Button>
            <Button color="red" loading={remove.isPending} onClick={() => remove.mutate(endpoint.id, { onSuccess: close })}>
              Delete endpoint
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
