// One budget per CRM and portal across processes (services/crm/portal-budget.ts,
// docs/crm.md#rate-limits): three ORMs with their own connection pools stand
// for three processes, each with its own budget object and HubSpot client, as
// the API and two CRM workers have. The HubSpot stand-in enforces the same
// figures, so a call over the budget shows as a 429 in its log, and it logs
// when every call arrived. Two CRMs' portals with the same id never share a
// window or a hold-off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Orm } from '../../db/orm.ts';
import type { BudgetWindow } from '../../integrations/crm/adapter.ts';
import { CrmUnavailable } from '../../integrations/crm/errors.ts';
import { hubspotBudgetWindows } from '../../integrations/hubspot/budget.ts';
import { loadHubSpotConfig } from '../../integrations/hubspot/config.ts';
import { createHubSpotCrm, type HubSpotCrm } from '../../integrations/hubspot/crm-client.ts';
import { createHubSpotOAuth } from '../../integrations/hubspot/oauth.ts';
import { startHubSpotSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type HubSpotSandbox } from '../../sandbox/hubspot/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/scratch-database.ts';
import { BUDGET_MARGIN_MS, createPortalBudgets, holdOffPortal, takePortalCall, type PortalKey } from '../../services/crm/portal-budget.ts';

let database: ScratchDatabase;
let processes: Orm[];
let hubspot: HubSpotSandbox;
let accessToken: string;
let portalId: string;
/** A call taken just before another process stores a backoff can still land just after it starts. */
const IN_FLIGHT_GRACE_MS = 100;
const HUBSPOT_KINDS = Object.keys(hubspotBudgetWindows({ callsPer10s: 1, searchesPerSecond: 1 }));
const hubspotPortal = (id: string): PortalKey => ({ provider: 'hubspot', portalId: id });

beforeAll(async () => {
  database = await createScratchDatabase('portal_budget', { processes: 3 });
  processes = database.orms;
  hubspot = await startHubSpotSandbox({ world: createWorld(), people: 30 });
  const config = loadHubSpotConfig({ HUBSPOT_CLIENT_ID: SANDBOX_CLIENT_ID, HUBSPOT_CLIENT_SECRET: SANDBOX_CLIENT_SECRET, HUBSPOT_API_BASE: hubspot.url, HUBSPOT_OAUTH_BASE: hubspot.url })!;
  const oauth = createHubSpotOAuth(config);
  const approved = await fetch(`${hubspot.url}/__admin/approve?authorize_url=${encodeURIComponent(oauth.authorizeUrl({ state: 's', redirectUri: 'http://127.0.0.1:9/cb', codeChallenge: null }))}`, { redirect: 'manual' });
  const grant = await oauth.exchangeCode({ code: new URL(approved.headers.get('location')!).searchParams.get('code')!, redirectUri: 'http://127.0.0.1:9/cb', codeVerifier: null });
  accessToken = grant.accessToken;
  portalId = grant.portalId;
}, 60_000);
afterAll(async () => {
  await hubspot?.close();
  await database?.drop();
});

/** One process's client of the portal, with its own budget object over its own pool. */
const clientOf = (orm: Orm, limits: { callsPer10s: number; searchesPerSecond: number }): HubSpotCrm =>
  createHubSpotCrm({
    apiBase: hubspot.url, portalId: Number(portalId), accessToken: async () => accessToken,
    budget: createPortalBudgets({ em: () => orm.em.fork() }).forPortal(hubspotPortal(portalId), hubspotBudgetWindows(limits)),
  });

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
    const portal = hubspotPortal('9100001');
    const windows = hubspotBudgetWindows({ callsPer10s: 10, searchesPerSecond: 4 });
    const attempts = await Promise.all(Array.from({ length: 30 }, (_, index) => takePortalCall(processes[index % 3]!.em.fork(), portal, 'general', windows.general)));
    expect(attempts.filter((each) => each.taken)).toHaveLength(10);
    const waits = attempts.filter((each) => !each.taken).map((each) => each.waitMs);
    expect(waits).toHaveLength(20);
    // The window is HubSpot's 10 s and a margin; the first call taken leaves it then.
    for (const wait of waits) {
      expect(wait).toBeGreaterThan(10_000 + BUDGET_MARGIN_MS - 2_000);
      expect(wait).toBeLessThanOrEqual(10_000 + BUDGET_MARGIN_MS);
    }
    // Searches are counted apart.
    expect((await takePortalCall(processes[0]!.em.fork(), portal, 'search', windows.search)).taken).toBe(true);
  });

  it('a backoff holds every kind of call from every process until it ends', async () => {
    const portal = hubspotPortal('9100002');
    const windows = hubspotBudgetWindows({ callsPer10s: 100, searchesPerSecond: 100 });
    await holdOffPortal(processes[1]!.em.fork(), portal, HUBSPOT_KINDS, 1_500);
    for (const orm of processes) {
      for (const kind of ['general', 'search'] as const) {
        const attempt = await takePortalCall(orm.em.fork(), portal, kind, windows[kind]);
        expect(attempt.taken).toBe(false);
        expect(attempt.waitMs).toBeGreaterThan(1_000);
        expect(attempt.waitMs).toBeLessThanOrEqual(1_500);
      }
    }
    // A shorter backoff asked later does not shorten it.
    await holdOffPortal(processes[2]!.em.fork(), portal, HUBSPOT_KINDS, 10);
    expect((await takePortalCall(processes[0]!.em.fork(), portal, 'general', windows.general)).waitMs).toBeGreaterThan(1_000);
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

describe('a budget per CRM', () => {
  // Portal ids are each CRM's own (HubSpot's and Pipedrive's are both numbers): the same id in two CRMs is two portals.
  const window: BudgetWindow = { windowMs: 10_000, max: 2 };

  it('two CRMs\' portals with the same id do not share a window', async () => {
    const inHubSpot: PortalKey = { provider: 'hubspot', portalId: '9100010' };
    const inPipedrive: PortalKey = { provider: 'pipedrive', portalId: '9100010' };
    const take = (portal: PortalKey, index: number) => takePortalCall(processes[index % 3]!.em.fork(), portal, 'general', window);
    expect((await Promise.all([0, 1, 2].map((index) => take(inHubSpot, index)))).filter((each) => each.taken)).toHaveLength(2);
    // HubSpot's window is full; Pipedrive's portal of the same id has all of its own.
    expect((await Promise.all([0, 1, 2].map((index) => take(inPipedrive, index)))).filter((each) => each.taken)).toHaveLength(2);
    expect((await take(inHubSpot, 0)).taken).toBe(false);
    expect((await take(inPipedrive, 1)).taken).toBe(false);
  });

  it('a hold-off of one CRM\'s portal leaves the same id in another CRM free', async () => {
    const inHubSpot: PortalKey = { provider: 'hubspot', portalId: '9100011' };
    const inSalesforce: PortalKey = { provider: 'salesforce', portalId: '9100011' };
    await holdOffPortal(processes[0]!.em.fork(), inHubSpot, HUBSPOT_KINDS, 5_000);
    const held = await takePortalCall(processes[1]!.em.fork(), inHubSpot, 'general', window);
    expect(held.taken).toBe(false);
    expect(held.waitMs).toBeGreaterThan(4_000);
    expect((await takePortalCall(processes[2]!.em.fork(), inSalesforce, 'general', window)).taken).toBe(true);
    // And the other way round: Salesforce held, HubSpot's hold-off neither shortened nor lengthened.
    await holdOffPortal(processes[2]!.em.fork(), inSalesforce, ['general'], 60_000);
    expect((await takePortalCall(processes[0]!.em.fork(), inSalesforce, 'general', window)).waitMs).toBeGreaterThan(55_000);
    const stillHeld = await takePortalCall(processes[1]!.em.fork(), inHubSpot, 'general', window);
    expect(stillHeld.taken).toBe(false);
    expect(stillHeld.waitMs).toBeLessThanOrEqual(5_000);
  });

  it('an allowance\'s hold-off keeps its reason: another process meeting it is told why and until when, and a shorter hold-off after it changes neither', async () => {
    const inPipedrive: PortalKey = { provider: 'pipedrive', portalId: '9100013' };
    const reason = "Pipedrive's daily API token budget is down to the 30% kept for the company's own use (8000 of 30000 tokens left)";
    await holdOffPortal(processes[0]!.em.fork(), inPipedrive, ['burst'], 3_600_000, reason);
    // A 429's short hold-off meanwhile: the longer one and its reason stay.
    await holdOffPortal(processes[2]!.em.fork(), inPipedrive, ['burst'], 2_000);
    const budget = createPortalBudgets({ em: () => processes[1]!.em.fork() }).forPortal(inPipedrive, { burst: { windowMs: 2_000, max: 70 } });
    const error = await budget.acquire('burst').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CrmUnavailable);
    const { holdOff } = error as CrmUnavailable;
    expect(holdOff?.reason).toBe(reason);
    expect(Math.abs(holdOff!.until.getTime() - (Date.now() + 3_600_000))).toBeLessThan(10_000);
    expect((error as Error).message).toContain(reason);
  });

  it('one process\'s budget objects of two CRMs with the same portal id and kind neither queue behind each other nor share a hold-off', async () => {
    const budgets = createPortalBudgets({ em: () => processes[0]!.em.fork() });
    const windows = { general: { windowMs: 3_000, max: 1 } };
    const inHubSpot = budgets.forPortal({ provider: 'hubspot', portalId: '9100012' }, windows);
    const inPipedrive = budgets.forPortal({ provider: 'pipedrive', portalId: '9100012' }, windows);
    await inHubSpot.acquire('general');
    // HubSpot's next call waits about 3 s for its window; Pipedrive's, asked after it, does not wait behind it.
    const finished: string[] = [];
    const queued = inHubSpot.acquire('general').then(() => void finished.push('hubspot'));
    await inPipedrive.acquire('general');
    finished.push('pipedrive');
    await queued;
    expect(finished).toEqual(['pipedrive', 'hubspot']);
    await inPipedrive.holdOff(60_000);
    const roomy: BudgetWindow = { windowMs: 3_000, max: 100 };
    expect((await takePortalCall(processes[1]!.em.fork(), { provider: 'pipedrive', portalId: '9100012' }, 'general', roomy)).waitMs).toBeGreaterThan(55_000);
    expect((await takePortalCall(processes[1]!.em.fork(), { provider: 'hubspot', portalId: '9100012' }, 'general', roomy)).taken).toBe(true);
  }, 15_000);

  it('a hold-off longer than a call may wait (an allowance spent) fails the call at once as unavailable, with the wait, from every process', async () => {
    const portal = { provider: 'salesforce' as const, portalId: '00D000000000HOLD' };
    const windows = { api: { windowMs: 1_000, max: 10 } };
    await createPortalBudgets({ em: () => processes[0]!.em.fork() }).forPortal(portal, windows).holdOff(3_600_000);
    const started = Date.now();
    const refused = await createPortalBudgets({ em: () => processes[1]!.em.fork() }).forPortal(portal, windows).acquire('api').catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(refused).toBeInstanceOf(CrmUnavailable);
    expect((refused as CrmUnavailable).retryAfterMs).toBeGreaterThan(3_590_000);
    expect((refused as CrmUnavailable).message).toMatch(/Salesforce 00D000000000HOLD is held off for 36\d\d s/);
    // A wait within the limit is waited, as before.
    const short = { provider: 'salesforce' as const, portalId: '00D000000000SHRT' };
    const budget = createPortalBudgets({ em: () => processes[2]!.em.fork() }).forPortal(short, windows);
    await budget.holdOff(1_000);
    const waited = Date.now();
    await budget.acquire('api');
    expect(Date.now() - waited).toBeGreaterThan(800);
  }, 15_000);
});
