import { Alert, Button, Code, Group, List, Stack, Text } from '@mantine/core';
import { ApiError } from '../../../lib/api-client.ts';
import { FormError } from '../../../components/auth-layout.tsx';
import { useAnswerConsent, type OAuthClientSummary } from '../api.ts';
import { hasExpired, type AuthorizationRequest } from '../oauth-request.ts';
import { describeScope } from '../scopes.ts';

const hostOf = (url: string | null | undefined) => {
  try {
    return url ? new URL(url).host : null;
  } catch {
    return null;
  }
};

/** An https client_id is a client ID metadata document: the agent is whoever serves that address. */
const isMetadataDocument = (clientId: string) => clientId.startsWith('https://');

/**
 * The owner's decision on an agent's request: who asks (its name, and for an
 * agent known by its metadata document, the host that vouches for it), what
 * it may do in plain words, and where the answer goes. Allow or Deny sends the
 * browser back to the agent.
 */
export function ConsentForm({ request, client, email }: { request: AuthorizationRequest; client: OAuthClientSummary; email: string }) {
  const answer = useAnswerConsent();
  const name = client.client_name?.trim() || request.clientId;
  const decide = (accept: boolean) => answer.mutate({ accept, oauthQuery: request.oauthQuery }, { onSuccess: (next) => window.location.assign(next) });
  const redirectHost = hostOf(request.redirectUri);
  const isExpired = hasExpired(request.oauthQuery) || (answer.error instanceof ApiError && answer.error.code === 'invalid_signature');

  return (
    <Stack>
      <Text>
        <strong>{name}</strong> asks to use Prospect enrichment as <strong>{email}</strong>.
      </Text>
      {isMetadataDocument(request.clientId) ? (
        <Text size="sm">
          It is identified by its metadata document at <strong>{hostOf(request.clientId)}</strong> (<Code>{request.clientId}</Code>).
        </Text>
      ) : (
        <Text size="sm">
          It registered itself under that name{hostOf(client.client_uri) ? ` and says it is from ${hostOf(client.client_uri)}` : ''}. Client ID:{' '}
          <Code>{request.clientId}</Code>.
        </Text>
      )}
      <div>
        <Text fw={600} id="consent-scopes">
          If you allow it, it may:
        </Text>
        <List aria-labelledby="consent-scopes" spacing={4} mt={4}>
          {request.scopes.map((scope) => (
            <List.Item key={scope}>{describeScope(scope)}</List.Item>
          ))}
        </List>
      </div>
      <Text size="sm">
        Any app can give itself a name: allow it only if you started connecting it just now. {redirectHost ? `Your answer goes back to ${redirectHost}. ` : ''}
        You can revoke it at any time on the AI agents page.
      </Text>
      {isExpired ? (
        <Alert color="red" role="alert" title="This request has expired">
          Go back to {name} and connect again.
        </Alert>
      ) : (
        <FormError error={answer.error} />
      )}
      <Group justify="flex-end">
        <Button variant="default" onClick={() => decide(false)} disabled={answer.isPending || answer.isSuccess || isExpired}>
          Deny
        </Button>
        <Button onClick={() => decide(true)} loading={answer.isPending || answer.isSuccess} disabled={isExpired}>
          Allow
        </Button>
      </Group>
    </Stack>
  );
}
