// A CRM test world: the HubSpot and chat stand-ins in-process, an account
// (with a product) connected to the stand-in through the real OAuth flow,
// and the sync's dependencies built as the worker builds them.
import type { EntityManager } from '@mikro-orm/postgresql';
import { CRM_SYNC_WORKFLOW_TYPE } from '../../domain/crm/crm.ts';
import type { CrmOAuth } from '../../integrations/crm/adapter.ts';
import { loadCrmConfig, type CrmConfig } from '../../integrations/crm/config.ts';
import { crmProviderKits, type CrmProviderKits } from '../../integrations/crm/providers.ts';
import { startChatSandbox, type ChatSandbox } from '../../sandbox/chat/server.ts';
import { startHubSpotSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type HubSpotSandbox } from '../../sandbox/hubspot/server.ts';
import type { World } from '../../sandbox/provider-world/world.ts';
import { createCrmTokens, saveConnection, type CrmTokens } from '../../services/crm/connections.ts';
import { createPortalBudgets } from '../../services/crm/portal-budget.ts';
import type { CrmSyncDeps } from '../../services/crm/sync.ts';
import { crmTaskQueue } from '../../services/crm/schedules.ts';
import { saveCrmSettings, type CrmSettingsInput } from '../../services/crm/settings.ts';
import type { TestStack } from './test-stack.ts';

export interface CrmFixture {
  hubspot: HubSpotSandbox;
  chat: ChatSandbox;
  config: CrmConfig;
  kits: CrmProviderKits;
  /** HubSpot's OAuth, as the API and the worker build it. */
  oauth: CrmOAuth;
  tokens: CrmTokens;
  deps: CrmSyncDeps;
  /** The variables the API and the worker get (as `npm run dev` gives them). */
  env: Record<string, string>;
  /** Connects the account to the stand-in's portal; the portal id, as text. */
  connect(em: EntityManager, accountId: number): Promise<string>;
  stop(): Promise<void>;
}

export const TEST_REDIRECT_URI = 'http://127.0.0.1:9/app/crm/callback';

/** Short retry waits for tests (each CRM's policy takes the keys it knows). */
export const CRM_TEST_RETRY: Record<string, number> = { tenSecondlyMs: 200, secondlyMs: 200, serverErrorBaseMs: 20 };

/** The CRM config, provider kits, tokens and the sync's dependencies for these CRM variables, built as the worker builds them. */
export function crmTestDeps(options: { env: Record<string, string>; em: () => EntityManager; onPaused?(productIds: number[]): Promise<void>; retry?: Record<string, number> }): {
  config: CrmConfig; kits: CrmProviderKits; tokens: CrmTokens; deps: CrmSyncDeps;
} {
  const config = loadCrmConfig(options.env)!;
  const kits = crmProviderKits(config);
  const clock = () => new Date();
  const tokens = createCrmTokens({ em: options.em, tokenKey: config.tokenKey, kits, clock, publicUrl: 'http://127.0.0.1:9', onPaused: options.onPaused });
  const deps: CrmSyncDeps = {
    em: options.em, clock, config, kits, tokens, budgets: createPortalBudgets({ em: options.em }), publicUrl: 'http://127.0.0.1:9', retry: options.retry ?? CRM_TEST_RETRY,
  };
  return { config, kits, tokens, deps };
}

export async function startCrmFixture(options: { world: World; em: () => EntityManager; people?: number; onPaused?(productIds: number[]): Promise<void> }): Promise<CrmFixture> {
  const [hubspot, chat] = await Promise.all([
    // Search budget as documented; the general one too. Tests that need more raise them through /__admin/limits.
    startHubSpotSandbox({ world: options.world, people: options.people ?? 40 }),
    startChatSandbox(),
  ]);
  const env = {
    HUBSPOT_CLIENT_ID: SANDBOX_CLIENT_ID, HUBSPOT_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
    HUBSPOT_API_BASE: hubspot.url, HUBSPOT_OAUTH_BASE: hubspot.url, HUBSPOT_APP_BASE: hubspot.url, CRM_CHAT_SANDBOX_URL: chat.url, ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  };
  const { config, kits, tokens, deps } = crmTestDeps({ env, em: options.em, onPaused: options.onPaused });
  const oauth = kits.hubspot!.oauth;
  return {
    hubspot, chat, config, kits, oauth, tokens, deps, env,
    async connect(em, accountId) {
      const authorizeUrl = oauth.authorizeUrl({ state: 'fixture', redirectUri: TEST_REDIRECT_URI, codeChallenge: null });
      const approved = await fetch(`${hubspot.url}/__admin/approve?authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
      const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
      const grant = await oauth.exchangeCode({ code, redirectUri: TEST_REDIRECT_URI, codeVerifier: null });
      await saveConnection(em, config.tokenKey, { accountId, provider: 'hubspot', grant, connectedBy: 'owner@example.com', now: new Date() });
      return grant.portalId;
    },
    async stop() {
      await Promise.all([hubspot.close(), chat.close()]);
    },
  };
}

/** The settings a test integration starts from: daily at 08:00 UTC, score ≥ 70, free-mail and role addresses skipped, 5 contacts a run. */
export const crmTestSettings = (overrides: Partial<CrmSettingsInput> = {}): CrmSettingsInput => ({
  cadence: 'daily', hourUtc: 8, scoreProperty: 'hubspotscore', minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: 5,
  chatWebhookUrl: null, digestEnabled: true, digestEmail: null, active: true, ...overrides,
});

/** A Growth account with a product, connected to the stand-in's portal, with `crmTestSettings(overrides)`. */
export async function connectedIntegration(
  stack: TestStack,
  crm: Pick<CrmFixture, 'connect'>,
  overrides: Partial<CrmSettingsInput> = {},
): Promise<{ accountId: number; productId: number }> {
  const em = stack.orm.em.fork();
  const accountId = await stack.createAccount('growth');
  await stack.createKey(accountId);
  const [{ id: productId }] = await em.execute('select id from product_context where account_id = ?', [accountId]);
  await crm.connect(em, accountId);
  await saveCrmSettings(em, accountId, productId, crmTestSettings(overrides), new Date());
  return { accountId, productId };
}

/** Starts a sync run of the product on the CRM task queue, as Run now does. */
export function startCrmRun(stack: TestStack, productId: number, workflowId: string) {
  return stack.temporal.workflow.start(CRM_SYNC_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: crmTaskQueue(stack.config.temporal.taskQueue),
    args: [{ productId, trigger: 'manual' }],
  });
}
