import { oauthProvider, type OAuthOptions, type Scope } from '@better-auth/oauth-provider';
import { jwt } from 'better-auth/plugins';
import { AGENT_SCOPES } from '../../domain/agents/scopes.ts';
import { clientMetadataDocumentDiscovery } from './client-metadata-documents.ts';
import type { DashboardConfig } from './config.ts';

/** Where the dashboard asks the signed-in owner to allow or deny an agent. */
export const CONSENT_PAGE = '/app/agents/consent';
const SIGN_IN_PAGE = '/app/sign-in';

/** The MCP server's resource identifier (RFC 8707): tokens are bound to it and to nothing else. */
export const mcpResourceOf = (publicUrl: string) => `${publicUrl}/mcp`;

/**
 * The tables of the OAuth provider and of its signing keys, prefixed like the
 * rest of better-auth's so they cannot collide with ours.
 */
export const AGENT_AUTH_TABLES = {
  oauthClient: { modelName: 'auth_oauth_client' },
  oauthResource: { modelName: 'auth_oauth_resource' },
  oauthClientResource: { modelName: 'auth_oauth_client_resource' },
  oauthRefreshToken: { modelName: 'auth_oauth_refresh_token' },
  oauthAccessToken: { modelName: 'auth_oauth_access_token' },
  oauthConsent: { modelName: 'auth_oauth_consent' },
  oauthClientAssertion: { modelName: 'auth_oauth_client_assertion' },
} as const;

export interface AgentAuthorizationOptions {
  config: DashboardConfig;
  /** Hosts a client ID metadata document may be fetched from on a private address: development and tests only (ALLOW_PRIVATE_HOSTS). */
  allowedPrivateHosts: ReadonlySet<string>;
}

/**
 * The dashboard's sign-in as the OAuth 2.1 authorization server of hosted
 * agents (docs/mcp.md#hosted-agents-oauth): authorization code with PKCE
 * (S256) only, dynamic client registration and client ID metadata documents,
 * access tokens signed by the JWT plugin for the one resource, `/mcp`, with
 * the scopes research:read and research:write.
 */
export function agentAuthorizationPlugins({ config, allowedPrivateHosts }: AgentAuthorizationOptions) {
  const resource = mcpResourceOf(config.publicUrl);
  const scopes: Scope[] = [...AGENT_SCOPES, 'offline_access'];
  const options: OAuthOptions<Scope[]> = {
    schema: AGENT_AUTH_TABLES,
    loginPage: SIGN_IN_PAGE,
    consentPage: CONSENT_PAGE,
    scopes,
    grantTypes: ['authorization_code', 'refresh_token'],
    resources: [{ identifier: resource, name: 'MCP server', allowedScopes: [...AGENT_SCOPES] }],
    resourceSeedMode: 'overwrite',
    // One resource: every agent may ask for it; what it may do is the scopes the owner allowed.
    enforcePerClientResources: false,
    allowDynamicClientRegistration: true,
    // Hosted agents (claude.ai, ChatGPT) register themselves before anyone has signed in.
    allowUnauthenticatedClientRegistration: true,
    clientRegistrationDefaultScopes: scopes,
    accessTokenExpiresIn: 60 * 60,
    // A retried refresh within 30 s gets the same answer rather than ending the grant.
    refreshTokenReuseInterval: 30,
    // Agents come through registration or metadata documents; a signed-in owner does not manage OAuth clients through the provider's own endpoints.
    clientPrivileges: ({ action }) => action === 'create',
    extensions: [],
  };
  options.extensions = [{ clientDiscovery: clientMetadataDocumentDiscovery(() => options, allowedPrivateHosts) }];
  return [
    jwt({ schema: { jwks: { modelName: 'auth_jwks' } }, jwks: { keyPairConfig: { alg: 'EdDSA', crv: 'Ed25519' } } }),
    oauthProvider(options),
  ];
}
