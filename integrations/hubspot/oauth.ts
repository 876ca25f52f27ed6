// HubSpot's OAuth authorization-code flow through @hubspot/api-client
// (its v1 token endpoints, with basePath = the configured API base). The SDK
// builds the consent URL on app.hubspot.com whatever the base path
// (src/discovery/oauth/OauthDiscovery.ts), so that URL is built here from the
// configured OAuth base. The SDK's TokenResponseIF drops hub_id, so the
// portal comes from the access-token info call.
import { Client } from '@hubspot/api-client';
import type { CrmGrant, CrmOAuth, CrmTokenSet } from '../crm/adapter.ts';
import type { HubSpotConfig } from './config.ts';
import { HubSpotUnavailable, oauthFailure } from './errors.ts';

export function createHubSpotOAuth(config: HubSpotConfig, now: () => Date = () => new Date()): CrmOAuth {
  const sdk = () => new Client({ basePath: config.apiBase });

  async function tokenCall(grant: 'authorization_code' | 'refresh_token', input: { code?: string; redirectUri?: string; refreshToken?: string }): Promise<CrmTokenSet> {
    const started = now().getTime();
    try {
      const reply = await sdk().oauth.tokensApi.create(grant, input.code, input.redirectUri, config.clientId, config.clientSecret, input.refreshToken);
      return { accessToken: reply.accessToken, refreshToken: reply.refreshToken, expiresAt: new Date(started + reply.expiresIn * 1000), apiBase: null };
    } catch (error) {
      throw classify(error);
    }
  }

  return {
    usesPkce: false,
    authorizeUrl({ state, redirectUri }) {
      const url = new URL(`${config.oauthBase}/oauth/authorize`);
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('scope', config.scopes.join(' '));
      url.searchParams.set('state', state);
      // URLSearchParams writes spaces as '+'; HubSpot documents %20.
      return url.toString().replace(/scope=([^&]*)/, (_all, scopes: string) => `scope=${scopes.replace(/\+/g, '%20')}`);
    },
    async exchangeCode({ code, redirectUri }): Promise<CrmGrant> {
      const tokens = await tokenCall('authorization_code', { code, redirectUri });
      try {
        const info = await sdk().oauth.accessTokensApi.get(tokens.accessToken);
        return { ...tokens, portalId: String(info.hubId), connectedUser: info.user ?? '', scopes: info.scopes ?? [] };
      } catch (error) {
        throw classify(error);
      }
    },
    refresh: (refreshToken) => tokenCall('refresh_token', { refreshToken }),
    async revoke(refreshToken) {
      try {
        await sdk().oauth.refreshTokensApi.archive(refreshToken);
      } catch (error) {
        // Already revoked or unknown: the goal is reached.
        if ((error as { code?: number }).code === 404 || (error as { code?: number }).code === 400) return;
        throw classify(error);
      }
    },
  };
}

function classify(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number') return oauthFailure(code, (error as { body?: unknown }).body);
  return new HubSpotUnavailable(`HubSpot OAuth could not be reached: ${error instanceof Error ? error.message : String(error)}`, null, 1_000);
}
