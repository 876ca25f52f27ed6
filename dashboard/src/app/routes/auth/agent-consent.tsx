import { Navigate, useLocation } from 'react-router';
import { AuthLayout, FormError } from '../../../components/auth-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useMe } from '../../../features/account/api.ts';
import { useOAuthClient } from '../../../features/agents/api.ts';
import { ConsentForm } from '../../../features/agents/components/consent-form.tsx';
import { authorizationRequestOf, type AuthorizationRequest } from '../../../features/agents/oauth-request.ts';
import { ApiError } from '../../../lib/api-client.ts';

const TITLE = 'Allow an AI agent?';

/**
 * Where the OAuth provider sends a signed-in owner to decide on an agent's
 * request (its signed query in the address). Signed out, the owner signs in
 * with the same query and the provider brings them back here.
 */
export default function AgentConsent() {
  const location = useLocation();
  const request = authorizationRequestOf(location.search);
  if (!request) {
    return (
      <AuthLayout title={TITLE}>
        <FormError error={new Error('This page opens when an AI agent asks to connect to your account. Start from your agent.')} />
      </AuthLayout>
    );
  }
  return <ConsentForOwner request={request} search={location.search} />;
}

function ConsentForOwner({ request, search }: { request: AuthorizationRequest; search: string }) {
  const me = useMe();
  const client = useOAuthClient(request.clientId);
  if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to={`/sign-in${search}`} replace />;
  return (
    <AuthLayout title={TITLE}>
      <QueryState query={me} label="your account">
        {({ email }) => (
          <QueryState query={client} label="the agent">
            {(summary) => <ConsentForm request={request} client={summary} email={email} />}
          </QueryState>
        )}
      </QueryState>
    </AuthLayout>
  );
}
