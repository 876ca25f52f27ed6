// Test portals of the CRMs besides HubSpot (test/helpers/crm-fixture.ts is
// HubSpot's): each CRM's stand-in in-process, the variables the worker and
// the API need to reach it, an account connected through the CRM's consent
// with the real OAuth state (and, for Salesforce, the PKCE verifier kept
// with it), and what a run left in the CRM read back from the stand-in's own
// records: our status and content per product, notes per contact, token
// grants; faults as each stand-in offers them.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CrmField } from '../../domain/crm/fields.ts';
import { CRM_PROVIDER_LABELS, type CrmProvider } from '../../integrations/crm/adapter.ts';
import type { CrmConfig } from '../../integrations/crm/config.ts';
import type { CrmProviderKits } from '../../integrations/crm/providers.ts';
import { ownFieldName as pipedriveFieldName } from '../../integrations/pipedrive/fields.ts';
import { ownFieldName as salesforceFieldName } from '../../integrations/salesforce/fields.ts';
import { startChatSandbox, type ChatSandbox } from '../../sandbox/chat/server.ts';
import { fieldByName } from '../../sandbox/pipedrive/company.ts';
import { DOCUMENTED_LIMITS } from '../../sandbox/pipedrive/limits.ts';
import { startPipedriveSandbox, SANDBOX_CLIENT_ID as PIPEDRIVE_CLIENT_ID, SANDBOX_CLIENT_SECRET as PIPEDRIVE_CLIENT_SECRET, type PipedriveSandbox } from '../../sandbox/pipedrive/server.ts';
import type { World } from '../../sandbox/provider-world/world.ts';
import { ZSalesforceFaults } from '../../sandbox/salesforce/faults.ts';
import { startSalesforceSandbox, SANDBOX_CLIENT_ID as SALESFORCE_CLIENT_ID, SANDBOX_CLIENT_SECRET as SALESFORCE_CLIENT_SECRET, type SalesforceSandbox } from '../../sandbox/salesforce/server.ts';
import { consumeOAuthState, createOAuthState, saveConnection, type CrmTokens } from '../../services/crm/connections.ts';
import type { CrmSyncDeps } from '../../services/crm/sync.ts';
import { CRM_TEST_RETRY, crmTestDeps, TEST_REDIRECT_URI } from './crm-fixture.ts';

export type PortalCrm = Exclude<CrmProvider, 'hubspot'>;

export interface TestPortal {
  provider: PortalCrm;
  label: string;
  /** The stand-in's base URL (its OAuth, API and admin routes). */
  url: string;
  /** The lead score field a product's settings name, by the CRM's key (Pipedrive: the `Lead score` field's hash key). */
  scoreField: string;
  /**
   * Connects the account to the stand-in as the callback does: a consent
   * state for the account's first product, the consent approved, the state
   * claimed (its PKCE verifier with it), the code exchanged, the grant saved.
   * The portal id.
   */
  connect(em: EntityManager, accountId: number): Promise<string>;
  /** Our field of the product on the record as the stand-in holds it, in our terms (status `completed`, texts as written); null: empty. */
  ownValueOf(productId: number, recordId: string, field: CrmField): string | null;
  /** Our status field of the product on the record: `in_progress`, `completed`, `failed`, or null. */
  statusOf(productId: number, recordId: string): string | null;
  /** Notes on the record (Pipedrive: the person's notes; Salesforce: ContentNotes linked to it). */
  notesOf(recordId: string): number;
  /** Notes per record now, for every record that has one (a test's baseline: the stand-in's records are shared by its products). */
  noteCounts(): Map<string, number>;
  /** Calls to the token endpoint since `since` (ISO): after the connection, each is a refresh. */
  tokenCalls(since: string): Promise<number>;
  /** The next `count` API calls answer 429. */
  rateLimitNext(count: number): Promise<void>;
  /** Every access token the stand-in issued stops working (its 401s). */
  expireAccessTokens(): Promise<void>;
  /**
   * The CRM's longer allowance used up to the reserve we keep (Pipedrive: the
   * day's tokens; Salesforce: the 24 hours' API requests, spent), as its
   * answers will say; `restoreAllowance` starts it over (the day turned).
   */
  spendAllowance(): Promise<void>;
  restoreAllowance(): Promise<void>;
  /** The stand-in's grants and whether each is revoked. */
  grants(): Promise<Array<{ revoked: boolean }>>;
}

export interface PipedrivePortal extends TestPortal {
  provider: 'pipedrive';
  sandbox: PipedriveSandbox;
}

export interface SalesforcePortal extends TestPortal {
  provider: 'salesforce';
  sandbox: SalesforceSandbox;
}

export interface TestPortals {
  pipedrive: PipedrivePortal;
  salesforce: SalesforcePortal;
  chat: ChatSandbox;
  /** The variables the API and the worker get: both CRMs' apps and the chat stand-in. */
  env: Record<string, string>;
  config: CrmConfig;
  kits: CrmProviderKits;
  tokens: CrmTokens;
  deps: CrmSyncDeps;
  stop(): Promise<void>;
}

/** Short waits for tests, Salesforce's pause after a concurrent-requests refusal among them. */
export const PORTALS_TEST_RETRY: Record<string, number> = { ...CRM_TEST_RETRY, concurrentMs: 300 };

const SESSION = 'crm-portals-test-session';
const countBy = (keys: string[]) => keys.reduce((counts, key) => counts.set(key, (counts.get(key) ?? 0) + 1), new Map<string, number>());
const adminJson = async (url: string, init?: RequestInit) => {
  const reply = await fetch(url, { ...init, headers: { 'content-type': 'application/json' } });
  if (!reply.ok) throw new Error(`${init?.method ?? 'GET'} ${url} answered ${reply.status}: ${await reply.text()}`);
  return reply.json() as Promise<any>;
};

export async function startCrmPortals(options: { world: World; em: () => EntityManager; people?: number; onPaused?(productIds: number[]): Promise<void> }): Promise<TestPortals> {
  const [pipedriveSandbox, salesforceSandbox, chat] = await Promise.all([
    startPipedriveSandbox({ world: options.world, people: options.people ?? 40 }),
    startSalesforceSandbox({ world: options.world, people: options.people ?? 40 }),
    startChatSandbox(),
  ]);
  const env = {
    PIPEDRIVE_CLIENT_ID, PIPEDRIVE_CLIENT_SECRET, PIPEDRIVE_OAUTH_BASE: pipedriveSandbox.url, PIPEDRIVE_API_BASE: pipedriveSandbox.url,
    SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET, SALESFORCE_LOGIN_BASE: salesforceSandbox.url,
    CRM_CHAT_SANDBOX_URL: chat.url, ALLOW_PRIVATE_HOSTS: '127.0.0.1',
  };
  const { config, kits, tokens, deps } = crmTestDeps({ env, em: options.em, onPaused: options.onPaused, retry: PORTALS_TEST_RETRY });

  /** The consent as the callback completes it, through the stand-in's approval (the Allow button's redirect). */
  async function connect(provider: PortalCrm, standIn: string, em: EntityManager, accountId: number): Promise<string> {
    const oauth = kits[provider]!.oauth;
    const [product]: Array<{ id: number }> = await em.execute('select id from product_context where account_id = ? order by id limit 1', [accountId]);
    if (!product) throw new Error(`account ${accountId} has no product to connect for`);
    const { state, codeChallenge } = await createOAuthState(em, { accountId, productId: product.id, provider, usesPkce: oauth.usesPkce, sessionUserId: SESSION, now: new Date() });
    const authorizeUrl = oauth.authorizeUrl({ state, redirectUri: TEST_REDIRECT_URI, codeChallenge });
    const approved = await fetch(`${standIn}/__admin/approve?authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
    const back = new URL(approved.headers.get('location') ?? 'http://missing.invalid');
    const claimed = await consumeOAuthState(em, back.searchParams.get('state') ?? '', SESSION, new Date());
    if (!claimed || claimed.accountId !== accountId) throw new Error(`${provider}: the consent came back without our state (${back})`);
    const grant = await oauth.exchangeCode({ code: back.searchParams.get('code') ?? '', redirectUri: TEST_REDIRECT_URI, codeVerifier: claimed.codeVerifier });
    await saveConnection(em, config.tokenKey, { accountId, provider, grant, connectedBy: 'owner@example.com', now: new Date() });
    return grant.portalId;
  }

  const company = () => pipedriveSandbox.company();
  const pipedrive: PipedrivePortal = {
    provider: 'pipedrive',
    label: CRM_PROVIDER_LABELS.pipedrive,
    url: pipedriveSandbox.url,
    sandbox: pipedriveSandbox,
    scoreField: fieldByName(company(), 'Lead score')!.key,
    connect: (em, accountId) => connect('pipedrive', pipedriveSandbox.url, em, accountId),
    ownValueOf(productId, recordId, field) {
      const definition = fieldByName(company(), pipedriveFieldName(productId, field));
      const value = definition ? company().persons.get(Number(recordId))?.custom[definition.key] : undefined;
      if (value === undefined || value === null) return null;
      // An option field holds its option's id: read back as its label in our terms ("In progress" → in_progress).
      const option = definition!.options?.find((each) => each.id === value);
      return option ? option.label.toLowerCase().replace(/ /g, '_') : String(value);
    },
    statusOf: (productId, recordId) => pipedrive.ownValueOf(productId, recordId, 'status'),
    notesOf: (recordId) => [...company().notes.values()].filter((note) => note.person_id === Number(recordId)).length,
    noteCounts: () => countBy([...company().notes.values()].map((note) => String(note.person_id))),
    tokenCalls: async (since) => pipedriveSandbox.calls().filter((call) => call.path === '/oauth/token' && call.at >= since).length,
    rateLimitNext: async (count) => pipedriveSandbox.setFaults({ on: 'all', rateLimitNext: count }),
    expireAccessTokens: async () => void (await adminJson(`${pipedriveSandbox.url}/__admin/expire-access-tokens`, { method: 'POST' })),
    // What is left is the reserve itself: the next call's cost would eat into it.
    spendAllowance: async () => pipedriveSandbox.setDailySpent(DOCUMENTED_LIMITS.dailyTokens - Math.ceil((DOCUMENTED_LIMITS.dailyTokens * config.pipedrive!.limits.dailyReservePercent) / 100)),
    restoreAllowance: async () => pipedriveSandbox.setDailySpent(0),
    grants: async () => (await adminJson(`${pipedriveSandbox.url}/__admin/state`)).grants,
  };

  const org = () => salesforceSandbox.org();
  /** A record by id: its object from the id's key prefix (00Q Lead, 003 Contact). */
  const recordOf = (recordId: string) => org().objects.get(recordId.startsWith('00Q') ? 'Lead' : 'Contact')!.records.get(recordId);
  const salesforce: SalesforcePortal = {
    provider: 'salesforce',
    label: CRM_PROVIDER_LABELS.salesforce,
    url: salesforceSandbox.url,
    sandbox: salesforceSandbox,
    scoreField: 'Lead_Score__c',
    connect: (em, accountId) => connect('salesforce', salesforceSandbox.url, em, accountId),
    ownValueOf(productId, recordId, field) {
      const value = recordOf(recordId)?.[salesforceFieldName(productId, field)];
      return value === undefined || value === null || value === '' ? null : String(value);
    },
    statusOf: (productId, recordId) => salesforce.ownValueOf(productId, recordId, 'status'),
    notesOf: (recordId) => [...org().objects.get('ContentDocumentLink')!.records.values()].filter((link) => link.LinkedEntityId === recordId).length,
    noteCounts: () => countBy([...org().objects.get('ContentDocumentLink')!.records.values()].map((link) => String(link.LinkedEntityId))),
    async tokenCalls(since) {
      const { calls } = (await adminJson(`${salesforceSandbox.url}/__admin/calls?since=${encodeURIComponent(since)}`)) as { calls: Array<{ path: string }> };
      return calls.filter((call) => call.path === '/services/oauth2/token').length;
    },
    rateLimitNext: async (count) => salesforceSandbox.setFaults({ on: 'all', tooManyRequestsNext: count }),
    expireAccessTokens: async () => void (await adminJson(`${salesforceSandbox.url}/__admin/expire-access-tokens`, { method: 'POST' })),
    // Every request of the 24 hours used: the next answers 403 REQUEST_LIMIT_EXCEEDED, its Limit Info past the reserve.
    spendAllowance: async () => void (await adminJson(`${salesforceSandbox.url}/__admin/faults`, { method: 'POST', body: JSON.stringify({ apiUsed: ZSalesforceFaults.parse({}).apiLimit }) })),
    restoreAllowance: async () => void (await adminJson(`${salesforceSandbox.url}/__admin/faults`, { method: 'POST', body: JSON.stringify({ apiUsed: 0 }) })),
    grants: async () => (await adminJson(`${salesforceSandbox.url}/__admin/state`)).tokens.refresh,
  };

  return {
    pipedrive, salesforce, chat, env, config, kits, tokens, deps,
    async stop() {
      await Promise.all([pipedriveSandbox.close(), salesforceSandbox.close(), chat.close()]);
    },
  };
}
