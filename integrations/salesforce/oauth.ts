// Salesforce's OAuth 2.0 web server flow with PKCE (help.salesforce.com
// "OAuth 2.0 Web Server Flow for Web App Integration"), over fetch: jsforce's
// OAuth2 class hides the HTTP status of a refused grant, which tells a
// revoked grant (invalid_grant) from a refused client (invalid_client).
// A token answer carries no lifetime (the org's session timeout decides), no
// refresh token on a refresh, and the org and user only in the identity URL
// `id` (…/id/{orgId}/{userId}); the user's name comes from that URL.
import type { CrmGrant, CrmOAuth, CrmTokenSet } from '../crm/adapter.ts';
import { CrmAuthRevoked, CrmConfigRejected, CrmRejected, CrmUnavailable } from '../crm/errors.ts';
import type { SalesforceConfig } from './config.ts';

interface TokenReply {
  access_token: string;
  refresh_token?: string;
  instance_url: string;
  id: string;
  issued_at: string;
  scope?: string;
}

export function createSalesforceOAuth(config: SalesforceConfig, fetchFn: typeof fetch = fetch): CrmOAuth {
  async function post(path: string, form: Record<string, string>): Promise<Response> {
    try {
      return await fetchFn(`${config.loginBase}${path}`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams(form).toString(),
      });
    } catch (error) {
      throw new CrmUnavailable(`Salesforce could not be reached: ${(error as Error).message}`, null, 1_000);
    }
  }

  async function tokenCall(form: Record<string, string>, isRefresh: boolean): Promise<TokenReply> {
    const reply = await post('/services/oauth2/token', { ...form, client_id: config.clientId, client_secret: config.clientSecret });
    const body = (await reply.json().catch(() => ({}))) as Partial<TokenReply> & { error?: string; error_description?: string };
    if (reply.ok && body.access_token && body.instance_url && body.id) return body as TokenReply;
    const reason = `${body.error ?? reply.status}: ${body.error_description ?? ''}`;
    if (reply.status >= 500) throw new CrmUnavailable(`Salesforce token endpoint answered ${reason}`, reply.status, 5_000);
    if (body.error === 'invalid_client' || body.error === 'invalid_client_id') throw new CrmConfigRejected(`Salesforce refused the client: ${reason}`);
    // A refresh token revoked, expired or of a removed user: only reconnecting helps.
    if (isRefresh && body.error === 'invalid_grant') throw new CrmAuthRevoked(`Salesforce refused the refresh token: ${reason}`);
    throw new CrmRejected(reply.status, `Salesforce refused the grant: ${reason}`);
  }

  const tokensOf = (reply: TokenReply, refreshToken: string): CrmTokenSet => ({
    accessToken: reply.access_token,
    refreshToken: reply.refresh_token ?? refreshToken,
    expiresAt: new Date(Number(reply.issued_at) + config.sessionMs),
    apiBase: reply.instance_url.replace(/\/+$/, ''),
  });

  return {
    usesPkce: true,
    authorizeUrl({ state, redirectUri, codeChallenge }) {
      const url = new URL(`${config.loginBase}/services/oauth2/authorize`);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      url.searchParams.set('scope', config.scopes.join(' '));
      if (codeChallenge !== null) {
        url.searchParams.set('code_challenge', codeChallenge);
        url.searchParams.set('code_challenge_method', 'S256');
      }
      return url.toString();
    },
    async exchangeCode({ code, redirectUri, codeVerifier }): Promise<CrmGrant> {
      const reply = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, ...(codeVerifier !== null ? { code_verifier: codeVerifier } : {}) }, false);
      if (!reply.refresh_token) throw new CrmRejected(400, 'Salesforce gave no refresh token: the External Client App must allow the refresh_token scope');
      const [orgId] = /\/id\/([^/]+)\/([^/]+)\/?$/.exec(reply.id)?.slice(1) ?? [];
      if (!orgId) throw new CrmRejected(502, `Salesforce's identity URL names no org: ${reply.id}`);
      let identity: { username?: string };
      try {
        const answer = await fetchFn(reply.id, { headers: { authorization: `Bearer ${reply.access_token}`, accept: 'application/json' } });
        if (!answer.ok) throw new CrmUnavailable(`Salesforce's identity URL answered ${answer.status}`, answer.status, 1_000);
        identity = (await answer.json()) as { username?: string };
      } catch (error) {
        if (error instanceof CrmUnavailable) throw error;
        throw new CrmUnavailable(`Salesforce's identity URL could not be reached: ${(error as Error).message}`, null, 1_000);
      }
      return { ...tokensOf(reply, reply.refresh_token), portalId: orgId, connectedUser: identity.username ?? '', scopes: (reply.scope ?? '').split(' ').filter(Boolean) };
    },
    async refresh(refreshToken) {
      return tokensOf(await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken }, true), refreshToken);
    },
    async revoke(refreshToken) {
      const reply = await post('/services/oauth2/revoke', { token: refreshToken });
      // 400 invalid_token: already revoked or unknown, the goal is reached.
      if (reply.ok || reply.status === 400) return;
      throw new CrmUnavailable(`Salesforce revoke answered ${reply.status}`, reply.status, 5_000);
    },
  };
}
