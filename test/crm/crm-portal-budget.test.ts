// One HubSpot budget per portal across processes (services/crm-portal-budget.ts,
// docs/crm.md#rate-limits): three ORMs with their own connection pools stand
// for three processes, each with its own budget object and HubSpot client, as
// the API and two CRM workers have. The HubSpot stand-in enforces the same
// figures, so a call over the budget shows as a 429 in its log, and it logs
// when every call arrived.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initOrm, type Orm } from '../../db/orm.ts';
import { loadHubSpotConfig } from '../../integrations/hubspot/config.ts';
import { createHubSpotCrm, type HubSpotCrm } from '../../integrations/hubspot/crm-client.ts';
import { createHubSpotOAuth } from '../../integrations/hubspot/oauth.ts';
import { startHubSpotSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type HubSpotSandbox } from '../../sandbox/hubspot/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { budgetWindowMs, createPortalBudget, holdOffPortal, takePortalCall, type PortalBudgetLimits } from '../../services/crm-portal-budget.ts';

const adminUrl = process.env.TEST_POSTGRES_ADMIN_URL!;
const database = `test_portal_budget_${randomBytes(4).toString('hex')}`;
let processes: Orm[];
let hubspot: HubSpotSandbox;
let accessToken: string;
let portalId: number;
/** A call taken just before another process stores a backoff can still land just after it starts. */
const IN_FLIGHT_GRACE_MS = 100;

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

beforeAll(async () => {
  await admin(`create database ${database}`);
  const url = adminUrl.replace(/\/[^/]+$/, `/${database}`);
  processes = [await initOrm(url, { migrate: true, poolMax: 4 }), await initOrm(url, { poolMax: 4 }), await initOrm(url, { poolMax: 4 })];
  hubspot = await startHubSpotSandbox({ world: createWorld(), people: 30 });
  const config = loadHubSpotConfig({ HUBSPOT_CLIENT_ID: SANDBOX_CLIENT_ID, HUBSPOT_CLIENT_SECRET: SANDBOX_CLIENT_SECRET, HUBSPOT_API_BASE: hubspot.url, HUBSPOT_OAUTH_BASE: hubspot.url })!;
  const oauth = createHubSpotOAuth(config);
  const approved = await fetch(`${hubspot.url}/__admin/approve?authorize_url=${encodeURIComponent(oauth.authorizeUrl({ state: 's', redirectUri: 'http://127.0.0.1:9/cb' }))}`, { redirect: 'manual' });
  const grant = await oauth.exchangeCode(new URL(approved.headers.get('location')!).searchParams.get('code')!, 'http://127.0.0.1:9/cb');
  accessToken = grant.accessToken;
  portalId = grant.portalId;
}, 60_000);
afterAll(async () => {
  await hubspot?.close();
  for (const orm of processes ?? []) await orm.close();
  await admin(`drop database if exists ${database} with (force)`);
});

/** One process's client of the portal, with its own budget object over its own pool. */
const clientOf = (orm: Orm, limits: PortalBudgetLimits): HubSpotCrm =>
  createHubSpotCrm({ apiBase: hubspot.url, portalId, accessToken: async () => accessToken, throttle: createPortalBudget({ em: () => orm.em.fork(), limits }) });

type Call = { at: string; kind: string; status: number; token?: string };
async function callsSince(since: string): Promise<Call[]> {
  const { calls } = (await (await fetch(`${hubspot.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as { calls: Call[] };
  return calls.filter((call) => call.kind !== 'oauth');
}

/** The most calls that arrived within any `windowMs` (each call opening a window). */
const peakIn = (calls: Call[], windowMs: number) =>
  Math.max(0, ...calls.map((call) => calls.filter((other) => Date.parse(other.at) >= Date.parse(call.at) && Date.parse(other.at) < Date.parse(call.at) + windowMs).length));

const search = (crm: HubSpotCrm) => crm.searchContacts({ filterGroups: [], properties: ['email'], sort: { propertyName: 'hubspotscore', direction: 'DESCENDING' }, limit: 1, after: null });

describe('a portal\'s budget shared by processes', () => {
  it('hands out exactly the budget to many callers of several processes at once, and says how long until the next call fits', async () => {
    const portal = 9_100_001;
    const attempts = await Promise.all(Array.from({ length: 30 }, (_, index) => takePortalCall(processes[index % 3]!.em.fork(), portal, 'general', 10)));
    expect(attempts.filter((each) => each.taken)).toHaveLength(10);
    const waits = attempts.filter((each) => !each.taken).map((each) => each.waitMs);
    expect(waits).toHaveLength(20);
    // The window is HubSpot's 10 s and a margin; the first call taken leaves it then.
    for (const wait of waits) {
      expect(wait).toBeGreaterThan(budgetWindowMs('general') - 2_000);
      expect(wait).toBeLessThanOrEqual(budgetWindowMs('general'));
    }
    // Searches are counted apart.
    expect((await takePortalCall(processes[0]!.em.fork(), portal, 'search', 4)).taken).toBe(true);
  });

  it('a backoff holds every kind of call from every process until it ends', async () => {
    const portal = 9_100_002;
    await holdOffPortal(processes[1]!.em.fork(), portal, 1_500);
    for (const orm of processes) {
      for (const kind of ['general', 'search'] as const) {
        const attempt = await takePortalCall(orm.em.fork(), portal, kind, 100);
        expect(attempt.taken).toBe(false);
        expect(attempt.waitMs).toBeGreaterThan(1_000);
        expect(attempt.waitMs).toBeLessThanOrEqual(1_500);
      }
    }
    // A shorter backoff asked later does not shorten it.
    await holdOffPortal(processes[2]!.em.fork(), portal, 10);
    expect((await takePortalCall(processes[0]!.em.fork(), portal, 'general', 100)).waitMs).toBeGreaterThan(1_000);
  });

  it('three processes calling one portal together stay within its searches per second: none refused', async () => {
    const limits = { callsPer10s: 1_000, searchesPerSecond: 3 };
    await fetch(`${hubspot.url}/__admin/limits`, { method: 'POST', body: JSON.stringify({ searchPerSecond: 3 }) });
    const since = new Date().toISOString();
    await Promise.all(processes.map((orm) => (async () => {
      const crm = clientOf(orm, limits);
      await Promise.all(Array.from({ length: 4 }, () => search(crm)));
    })()));
    const searches = (await callsSince(since)).filter((call) => call.kind === 'search');
    expect(searches).toHaveLength(12);
    expect(searches.filter((call) => call.status !== 200)).toEqual([]);
    expect(peakIn(searches, 1_000)).toBeLessThanOrEqual(3);
    await fetch(`${hubspot.url}/__admin/limits`, { method: 'POST', body: JSON.stringify({ searchPerSecond: 5 }) });
  }, 30_000);

  it('three processes calling one portal together stay within its calls per 10 s: none refused', async () => {
    const limits = { callsPer10s: 10, searchesPerSecond: 5 };
    await fetch(`${hubspot.url}/__admin/limits`, { method: 'POST', body: JSON.stringify({ general: 10 }) });
    const since = new Date().toISOString();
    const startedAt = Date.now();
    await Promise.all(processes.map((orm) => (async () => {
      const crm = clientOf(orm, limits);
      await Promise.all(Array.from({ length: 5 }, (_, index) => crm.getContact(String(101 + index), ['email'])));
    })()));
    const general = (await callsSince(since)).filter((call) => call.kind !== 'search');
    expect(general).toHaveLength(15);
    expect(general.filter((call) => call.status !== 200)).toEqual([]);
    expect(peakIn(general, 10_000)).toBeLessThanOrEqual(10);
    // Five of them waited for the first ones to leave the window.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(10_000);
    await fetch(`${hubspot.url}/__admin/limits`, { method: 'POST', body: JSON.stringify({ general: 110 }) });
  }, 40_000);

  it('after a 429 with Retry-After, no process calls the portal until it has passed', async () => {
    const limits = { callsPer10s: 1_000, searchesPerSecond: 5 };
    const since = new Date().toISOString();
    hubspot.setFaults({ rateLimitNext: 1, rateLimitRetryAfterSeconds: 2, on: 'all' });
    await Promise.all(processes.map((orm, index) => (async () => {
      const crm = clientOf(orm, limits);
      // Each process keeps calling, searches among its reads, so that every kind meets the backoff.
      for (let call = 0; call < 8; call++) {
        if (call % 4 === index) await search(crm);
        else await crm.getContact(String(101 + call), ['email']);
      }
    })()));
    hubspot.setFaults({ rateLimitNext: 0, rateLimitRetryAfterSeconds: null });
    const calls = await callsSince(since);
    const refused = calls.filter((call) => call.status === 429);
    expect(refused).toHaveLength(1);
    const heldFrom = Date.parse(refused[0]!.at);
    const during = calls.filter((call) => Date.parse(call.at) > heldFrom + IN_FLIGHT_GRACE_MS && Date.parse(call.at) < heldFrom + 2_000);
    expect(during).toEqual([]);
    // Every process went on after it: 24 calls answered, and the refused one once more.
    expect(calls.filter((call) => call.status === 200)).toHaveLength(24);
    expect(calls.filter((call) => Date.parse(call.at) >= heldFrom + 2_000).length).toBeGreaterThanOrEqual(3);
  }, 30_000);
});
