import { Button, Card, Checkbox, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useState, type FormEvent } from 'react';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../../../../domain/webhooks/webhooks.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useAddEndpoint, useWebhooks } from '../../../features/webhooks/api.ts';
import { EndpointCard } from '../../../features/webhooks/components/endpoint-card.tsx';

/** The Webhooks page: endpoints that receive a signed event when a research job ends (docs/webhooks.md). */
export default function WebhooksPage() {
  const webhooks = useWebhooks();
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <Stack maw={960}>
        <Text>
          When a research job ends, each active endpoint that chose its event receives a POST with <code>{'{type, timestamp, data}'}</code>, where{' '}
          <code>data</code> is the job's status reply. Deliveries are signed per Standard Webhooks (<code>webhook-id</code>,{' '}
          <code>webhook-timestamp</code>, <code>webhook-signature</code>) and retried for about a day.
        </Text>
        <AddEndpointForm />
        <QueryState query={webhooks} label="your webhook endpoints">
          {({ endpoints }) =>
            endpoints.length === 0 ? <Text c="dimmed">No endpoints yet.</Text> : endpoints.map((endpoint) => <EndpointCard key={endpoint.id} endpoint={endpoint} />)
          }
        </QueryState>
      </Stack>
    </>
  );
}

function AddEndpointForm() {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([...WEBHOOK_EVENTS]);
  const add = useAddEndpoint();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate({ url, events }, { onSuccess: () => setUrl('') });
  };
  return (
    <Card withBorder component="section" aria-labelledby="add-endpoint-heading">
      <Title order={2} size="h4" id="add-endpoint-heading" mb="sm">
        Add an endpoint
      </Title>
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label="Endpoint URL"
            description="An https:// address on the public internet."
            placeholder="https://example.com/webhooks/research"
            value={url}
            onChange={(event) => setUrl(event.currentTarget.value)}
            required
          />
          <Checkbox.Group label="Events" value={events} onChange={(value) => setEvents(value as WebhookEvent[])}>
            <Group mt="xs">
              {WEBHOOK_EVENTS.map((name) => (
                <Checkbox key={name} value={name} label={name} />
              ))}
            </Group>
          </Checkbox.Group>
          <FormError error={add.error} />
          {add.isSuccess && <FormNotice>Endpoint added. Reveal its secret below to verify signatures.</FormNotice>}
          <Button type="submit" loading={add.isPending} w="fit-content">
            Add endpoint
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
