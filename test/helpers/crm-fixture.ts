// A CRM test world: the HubSpot and chat stand-ins in-process, an account
// (with a product) connected to the stand-in through the real OAuth flow,
// and the sync's dependencies built as the worker builds them.
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadHubSpotConfig, type HubSpotConfig } from '../../integrations/hubspot/config.ts';
import { createHubSpotOAuth, type HubSpotOAuth } from '../../integrations/hubspot/oauth.ts';
import { createPortalThrottle } from '../../integrations/hubspot/throttle.ts';
import { startChatSandbox, type ChatSandbox } from '../../sandbox/chat/server.ts';
import { startHubSpotSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type HubSpotSandbox } from '../../sandbox/hubspot/server.ts';
import type { World } from '../../sandbox/provider-world/world.ts';
import { createCrmTokens, saveConnection, type CrmTokens } from '../../services/crm-connections.ts';
import type { CrmSyncDeps } from '../../services/crm-sync.ts';

export interface CrmFixture {
  hubspot: HubSpotSandbox;
  chat: ChatSandbox;
  config: HubSpotConfig;
  oauth: HubSpotOAuth;
  tokens: CrmTokens;
  deps: CrmSyncDeps;
  /** The variables the API and the worker get (as `npm run dev` gives them). */
  env: Record<string, string>;
  connect(em: EntityManager, accountId: number): Promise<number>;
  stop(): Promise<void>;
}

export const TEST_REDIRECT_URI = 'http://127.0.0.1:9/app/crm/callback';

export async function startCrmFixture(options: { world: World; em: () => EntityManager; people?: number; onPaused?(productIds: number[]): Promise<void> }): Promise<CrmFixture> {
  const [hubspot, chat] = await Promise.all([
    // Search budget as documented; the general one too. Tests that need more raise them through /__admin/limits.
    startHubSpotSandbox({ world: options.world, people: options.people ?? 40 }),
    startChatSandbox(),
  ]);
  const env = {
    HUBSPOT_CLIENT_ID: SANDBOX_CLIENT_ID, HUBSPOT_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
    HUBSPOT_API_BASE: hubspot.url, HUBSPOT_OAUTH_BASE: hubspot.url, HUBSPOT_APP_BASE: hubspot.url, CRM_CHAT_SANDBOX_URL: chat.url,
  };
  const config = loadHubSpotConfig(env)!;
  const oauth = createHubSpotOAuth(config);
  const clock = () => new Date();
  const tokens = createCrmTokens({ em: options.em, config, oauth, clock, publicUrl: 'http://127.0.0.1:9', onPaused: options.onPaused });
  const deps: CrmSyncDeps = {
    em: options.em, clock, hubspot: config, tokens, throttle: createPortalThrottle(config.limits), publicUrl: 'http://127.0.0.1:9',
    retry: { tenSecondlyMs: 200, secondlyMs: 200, serverErrorBaseMs: 20 },
  };
  return {
    hubspot, chat, config, oauth, tokens, deps, env,
    async connect(em, accountId) {
      const authorizeUrl = oauth.authorizeUrl({ state: 'fixture', redirectUri: TEST_REDIRECT_URI });
      const approved = await fetch(`${hubspot.url}/__admin/approve?authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
      const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
      const grant = await oauth.exchangeCode(code, TEST_REDIRECT_URI);
      await saveConnection(em, config.tokenKey, { accountId, grant, connectedBy: 'owner@example.com', now: new Date() });
      return grant.portalId;
    },
    async stop() {
      await Promise.all([hubspot.close(), chat.close()]);
    },
  };
}
