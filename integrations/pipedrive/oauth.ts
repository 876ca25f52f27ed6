// Pipedrive's OAuth 2.0 authorization-code flow for a Marketplace app
// (pipedrive.readme.io/docs/marketplace-oauth-authorization; the v2 OpenAPI's
// `oauth2` scheme): the consent page at <oauth>/oauth/authorize, the token
// endpoint POST <oauth>/oauth/token (form body, the client id and secret as
// HTTP Basic), POST <oauth>/oauth/revoke. The token answer names `api_domain`,
// the company's own base (https://acme.pipedrive.com) where every later call
// goes; the company and the user come from GET /v1/users/me.
//
// The token calls are plain fetch: the SDK's OAuth2Configuration keeps one
// connection's tokens inside itself, and its axios interceptor drops the
// status code of an error, which tells a revoked grant (400) from a refused
// client (401) from an outage (5xx). /users/me goes through the SDK.
import type { CrmGrant, CrmOAuth, CrmTokenSet } from '../crm/adapter.ts';
import { CrmAuthRevoked, CrmConfigRejected, CrmRejected, CrmUnavailable } from '../crm/errors.ts';
import { fetchTransport, messageOf, pipedriveApi, sdkFor, type Reply, type Transport } from './client.ts';
import type { PipedriveConfig } from './config.ts';

interface TokenReply {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope?: string;
  api_domain?: string;
}

export function createPipedriveOAuth(config: PipedriveConfig, options: { now?: () => Date; transport?: Transport } = {}): CrmOAuth {
  const now = options.now ?? (() => new Date());
  const transport = options.transport ?? fetchTransport();
  const basic = `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`;

  async function post(path: '/oauth/token' | '/oauth/revoke', form: Record<string, string>): Promise<Reply> {
    try {
      return await transport.request({
        url: `${config.oauthBase}${path}`, method: 'POST', data: new URLSearchParams(form).toString(),
        headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      });
    } catch (error) {
      throw new CrmUnavailable(`Pipedrive OAuth could not be reached: ${(error as Error).message}`, null, 1_000);
    }
  }

  async function tokens(form: Record<string, string>, previousApiBase: string | null): Promise<CrmTokenSet & { scopes: string[] }> {
    const started = now().getTime();
    const reply = await post('/oauth/token', form);
    if (reply.status !== 200) throw oauthFailure(reply);
    const body = reply.body as TokenReply;
    return {
      accessToken: body.access_token,
      // Pipedrive answers a refresh with a refresh token (the same one, as of its docs); keep ours if none comes.
      refreshToken: body.refresh_token || form.refresh_token || '',
      expiresAt: new Date(started + body.expires_in * 1000),
      apiBase: body.api_domain?.replace(/\/+$/, '') || previousApiBase,
      scopes: (body.scope ?? '').split(/[\s,]+/).filter(Boolean),
    };
  }

  return {
    usesPkce: false,
    authorizeUrl({ state, redirectUri }) {
      const url = new URL(`${config.oauthBase}/oauth/authorize`);
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      return url.toString();
    },
    async exchangeCode({ code, redirectUri }): Promise<CrmGrant> {
      const { scopes, ...set } = await tokens({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }, null);
      const apiBase = set.apiBase ?? config.apiBase;
      const request = await pipedriveApi.currentUser(sdkFor(apiBase, set.accessToken)).getCurrentUser();
      let reply: Reply;
      try {
        reply = (await request(transport as never)) as Reply;
      } catch (error) {
        throw new CrmUnavailable(`Pipedrive could not be reached: ${(error as Error).message}`, null, 1_000);
      }
      if (reply.status !== 200) throw reply.status >= 500 || reply.status === 429 ? new CrmUnavailable(`Pipedrive answered ${reply.status}: ${messageOf(reply.body)}`, reply.status, 1_000) : new CrmRejected(reply.status, `Pipedrive answered ${reply.status}: ${messageOf(reply.body)}`);
      const user = (reply.body as { data: { company_id: number; email: string } }).data;
      return { ...set, apiBase, portalId: String(user.company_id), connectedUser: user.email, scopes };
    },
    async refresh(refreshToken, apiBase) {
      const { scopes: _scopes, ...set } = await tokens({ grant_type: 'refresh_token', refresh_token: refreshToken }, apiBase);
      return set;
    },
    async revoke(refreshToken) {
      const reply = await post('/oauth/revoke', { token: refreshToken, token_type_hint: 'refresh_token' });
      if (reply.status === 200) return;
      const failure = oauthFailure(reply);
      // Already revoked or unknown: the goal is reached.
      if (failure instanceof CrmAuthRevoked) return;
      throw failure;
    },
  };
}

/**
 * The OAuth server's errors (pipedrive.readme.io/docs/marketplace-oauth-and-api-proxy-status-codes):
 * 400 with "Invalid client: …" (our id or secret), "Invalid grant: …" (a code
 * or refresh token that is invalid, expired or already exchanged), or another
 * refusal; 401 when the client's credentials are missing; 429 or 5xx: wait.
 */
function oauthFailure(reply: Reply): Error {
  const fields = (reply.body ?? {}) as { error?: string };
  const text = messageOf(reply.body);
  if (reply.status === 429 || reply.status >= 500) return new CrmUnavailable(`Pipedrive OAuth answered ${reply.status}: ${text}`, reply.status, 1_000);
  if (fields.error === 'invalid_client' || /^Invalid client/i.test(text) || reply.status === 401) return new CrmConfigRejected(`Pipedrive refused the app's credentials: ${text}`);
  if (fields.error === 'invalid_grant' || /^Invalid grant/i.test(text)) return new CrmAuthRevoked(`Pipedrive refused the grant: ${text}`);
  return new CrmRejected(reply.status, `Pipedrive OAuth answered ${reply.status}: ${text}`);
}
