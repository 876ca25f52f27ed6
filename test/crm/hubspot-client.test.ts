// Our HubSpot client (integrations/hubspot) against the stand-in: OAuth,
// idempotent setup, search, retries as HubSpot documents (each 429 reported
// to the portal's budget, which test/crm/crm-portal-budget.test.ts tests
// against PostgreSQL), a refused token named to the token source, refusals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmCallBudget, CrmGrant } from '../../integrations/crm/adapter.ts';
import { loadCrmConfig } from '../../integrations/crm/config.ts';
import type { HubSpotConfig } from '../../integrations/hubspot/config.ts';
import { createHubSpotCrm, type HubSpotCrm } from '../../integrations/hubspot/crm-client.ts';
import { HubSpotAuthRevoked, HubSpotRejected, HubSpotUnavailable } from '../../integrations/hubspot/errors.ts';
import { createHubSpotOAuth } from '../../integrations/hubspot/oauth.ts';
import { decryptToken, encryptToken } from '../../lib/token-cipher.ts';
import { startHubSpotSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type HubSpotSandbox } from '../../sandbox/hubspot/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';

let hubspot: HubSpotSandbox;
let config: HubSpotConfig;
/** The key CRM tokens are encrypted with (the fixed development key of a local stand-in). */
let tokenKey: Buffer;
let grant: CrmGrant;
const redirectUri = 'http://127.0.0.1:9/app/crm/callback';

beforeAll(async () => {
  hubspot = await startHubSpotSandbox({ world: createWorld(), people: 30 });
  const crmConfig = loadCrmConfig({
    HUBSPOT_CLIENT_ID: SANDBOX_CLIENT_ID, HUBSPOT_CLIENT_SECRET: SANDBOX_CLIENT_SECRET, HUBSPOT_API_BASE: hubspot.url, HUBSPOT_OAUTH_BASE: hubspot.url, HUBSPOT_APP_BASE: hubspot.url,
  })!;
  config = crmConfig.hubspot!;
  tokenKey = crmConfig.tokenKey;
  const oauth = createHubSpotOAuth(config);
  const authorizeUrl = oauth.authorizeUrl({ state: 'st-1', redirectUri, codeChallenge: null });
  const approved = await fetch(`${hubspot.url}/__admin/approve?authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
  const back = new URL(approved.headers.get('location')!);
  expect(back.searchParams.get('state')).toBe('st-1');
  grant = await oauth.exchangeCode({ code: back.searchParams.get('code')!, redirectUri, codeVerifier: null });
});
afterAll(async () => hubspot?.close());

const fastRetry = { tenSecondlyMs: 50, secondlyMs: 50, serverErrorBaseMs: 10 };

/** The portal's budget seam without limits, keeping what the client reports: the hold-offs a 429 asks for. */
const holdOffs: Array<{ ms: number }> = [];
const unlimited: CrmCallBudget = { acquire: async () => {}, holdOff: async (ms) => void holdOffs.push({ ms }) };

function crmWith(token: (options?: { refused?: string }) => Promise<string>): HubSpotCrm {
  return createHubSpotCrm({ apiBase: config.apiBase, portalId: Number(grant.portalId), accessToken: token, budget: unlimited, retry: fastRetry });
}

describe('HubSpot client against the stand-in', () => {
  it('builds the consent URL on the configured OAuth base with %20-separated scopes, and exchanges the code for the portal', () => {
    const url = createHubSpotOAuth(config).authorizeUrl({ state: 'x', redirectUri, codeChallenge: null });
    expect(url.startsWith(`${hubspot.url}/oauth/authorize?`)).toBe(true);
    expect(url).toContain('scope=oauth%20crm.objects.contacts.read%20');
    expect(grant).toMatchObject({ portalId: '4000001', connectedUser: 'owner@portal.example', apiBase: null });
    expect(grant.expiresAt.getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);
  });

  it('encrypts tokens with AES-GCM bound to their purpose', () => {
    const stored = encryptToken(tokenKey, grant.refreshToken, 'refresh');
    expect(stored).not.toContain(grant.refreshToken);
    expect(decryptToken(tokenKey, stored, 'refresh')).toBe(grant.refreshToken);
    expect(() => decryptToken(tokenKey, stored, 'access')).toThrow();
    expect(() => decryptToken(Buffer.alloc(32, 1), stored, 'refresh')).toThrow();
  });

  it('creates a group and properties once, and reads them back the second time', async () => {
    const crm = crmWith(async () => grant.accessToken);
    expect(await crm.ensureGroup('pe_77', 'Prospect Enrichment: Test')).toBe('created');
    expect(await crm.ensureGroup('pe_77', 'Prospect Enrichment: Test')).toBe('existed');
    const property = { name: 'pe_77_status', label: 'Status', type: 'enumeration' as const, fieldType: 'select', groupName: 'pe_77', description: 'x', options: [{ label: 'Completed', value: 'completed', displayOrder: 0, hidden: false }] };
    expect(await crm.ensureProperty(property)).toBe('created');
    expect(await crm.ensureProperty(property)).toBe('existed');
  });

  it('offers as lead scores only the numbers that can be one: HubSpot\'s scores and counts and the portal\'s own numbers, never an id or a hidden one', async () => {
    const crm = crmWith(async () => grant.accessToken);
    await crm.createProperty({ name: 'fit_score', label: 'Fit score', type: 'number', fieldType: 'number', groupName: 'contactinformation', description: 'ours' });
    const offered = (await crm.scoreProperties()).map((each) => each.name);
    expect(offered.sort()).toEqual(['fit_score', 'hs_predictivecontactscore_v2', 'hubspotscore', 'num_notes']);
    // Numbers the stand-in's portal holds beside them, as HubSpot describes them, that are no score.
    const numbers = ((await (await fetch(`${hubspot.url}/crm/v3/properties/contacts`, { headers: { authorization: `Bearer ${grant.accessToken}` } })).json()) as { results: Array<{ name: string; type: string }> })
      .results.filter((property) => property.type === 'number').map((property) => property.name);
    expect(numbers).toEqual(expect.arrayContaining(['hs_object_id', 'hs_created_by_user_id', 'associatedcompanyid', 'hs_merged_object_ids_count']));
  });

  it('refuses unknown properties with PROPERTY_DOESNT_EXIST named', async () => {
    const crm = crmWith(async () => grant.accessToken);
    const error = await crm.updateContact('101', { pe_77_nope: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HubSpotRejected);
    expect((error as HubSpotRejected).propertyErrors).toEqual([{ error: 'PROPERTY_DOESNT_EXIST', name: 'pe_77_nope' }]);
  });

  it('retries 429 and 5xx answers, and gives up with HubSpotUnavailable after its attempts', async () => {
    const crm = crmWith(async () => grant.accessToken);
    hubspot.setFaults({ rateLimitNext: 2, serverErrorNext: 2, on: 'write' });
    holdOffs.length = 0;
    await crm.updateContact('101', { jobtitle: 'Head of Tests' });
    expect(hubspot.portal().contacts.get('101')!.properties.jobtitle).toBe('Head of Tests');
    // Each 429 holds the portal off for the policy's window (TEN_SECONDLY_ROLLING; 50 ms in this test's policy); 5xx do not.
    expect(holdOffs).toEqual([{ ms: 50 }, { ms: 50 }]);
    hubspot.setFaults({ serverErrorNext: 10, on: 'write' });
    await expect(crm.updateContact('101', { jobtitle: 'x' })).rejects.toBeInstanceOf(HubSpotUnavailable);
    hubspot.setFaults({ serverErrorNext: 0, rateLimitNext: 1, rateLimitPolicy: 'DAILY', on: 'write' });
    await expect(crm.updateContact('101', { jobtitle: 'x' })).rejects.toBeInstanceOf(HubSpotRejected);
    hubspot.setFaults({ rateLimitNext: 0, rateLimitPolicy: 'TEN_SECONDLY_ROLLING', on: 'all' });
  });

  it('holds the portal off for the Retry-After a 429 carries, and tries again after it', async () => {
    const crm = crmWith(async () => grant.accessToken);
    hubspot.setFaults({ rateLimitNext: 1, rateLimitRetryAfterSeconds: 1, on: 'write' });
    holdOffs.length = 0;
    const started = Date.now();
    await crm.updateContact('101', { jobtitle: 'Head of Waiting' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(holdOffs).toEqual([{ ms: 1_000 }]);
    hubspot.setFaults({ rateLimitRetryAfterSeconds: null, on: 'all' });
  });

  it('names the refused token to its source once on a 401 (a token expiring mid-run), then goes on with the one it gets', async () => {
    const oauth = createHubSpotOAuth(config);
    const expired = grant.accessToken;
    let current = expired;
    const refused: string[] = [];
    const crm = crmWith(async (options) => {
      if (options?.refused !== undefined) {
        refused.push(options.refused);
        current = (await oauth.refresh(grant.refreshToken, null)).accessToken;
      }
      return current;
    });
    await fetch(`${hubspot.url}/__admin/expire-access-tokens`, { method: 'POST' });
    const page = await crm.searchContacts({ filterGroups: [], properties: ['email'], sort: { propertyName: 'hubspotscore', direction: 'DESCENDING' }, limit: 5, after: null });
    expect(page.contacts).toHaveLength(5);
    expect(refused).toEqual([expired]);
    grant = { ...grant, accessToken: current };
  });

  it('a revoked refresh token is HubSpotAuthRevoked', async () => {
    const oauth = createHubSpotOAuth(config);
    await oauth.revoke(grant.refreshToken, null);
    await oauth.revoke(grant.refreshToken, null); // twice is fine
    await expect(oauth.refresh(grant.refreshToken, null)).rejects.toBeInstanceOf(HubSpotAuthRevoked);
  });
});
