// Our HubSpot client's batch calls (docs/crm.md#batch-writes) against the
// stand-in, and the pure matching of a batch reply to its inputs: each input
// ends done or refused with a reason, a refused one alone; a notes batch
// create is not sent twice when its answer is lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmCallBudget } from '../../integrations/crm/adapter.ts';
import { batchOutcomes, inBatches } from '../../integrations/hubspot/batch-results.ts';
import { loadHubSpotConfig } from '../../integrations/hubspot/config.ts';
import { createHubSpotCrm, type HubSpotCrm } from '../../integrations/hubspot/crm-client.ts';
import { HubSpotUnavailable } from '../../integrations/hubspot/errors.ts';
import { createHubSpotOAuth } from '../../integrations/hubspot/oauth.ts';
import { startHubSpotSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type HubSpotSandbox } from '../../sandbox/hubspot/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';

let hubspot: HubSpotSandbox;
let crm: HubSpotCrm;
const acquired: string[] = [];

beforeAll(async () => {
  hubspot = await startHubSpotSandbox({ world: createWorld(), people: 30 });
  const config = loadHubSpotConfig({
    HUBSPOT_CLIENT_ID: SANDBOX_CLIENT_ID, HUBSPOT_CLIENT_SECRET: SANDBOX_CLIENT_SECRET, HUBSPOT_API_BASE: hubspot.url, HUBSPOT_OAUTH_BASE: hubspot.url, HUBSPOT_APP_BASE: hubspot.url,
  })!;
  const oauth = createHubSpotOAuth(config);
  const redirectUri = 'http://127.0.0.1:9/app/crm/callback';
  const approved = await fetch(`${hubspot.url}/__admin/approve?authorize_url=${encodeURIComponent(oauth.authorizeUrl({ state: 'b', redirectUri, codeChallenge: null }))}`, { redirect: 'manual' });
  const grant = await oauth.exchangeCode({ code: new URL(approved.headers.get('location')!).searchParams.get('code')!, redirectUri, codeVerifier: null });
  // The budget seam, recording each call it lets through.
  const budget: CrmCallBudget = { acquire: async (kind) => void acquired.push(kind), holdOff: async () => {} };
  crm = createHubSpotCrm({ apiBase: config.apiBase, portalId: Number(grant.portalId), accessToken: async () => grant.accessToken, budget, retry: { tenSecondlyMs: 20, secondlyMs: 20, serverErrorBaseMs: 10 } });
});
afterAll(async () => hubspot?.close());

const calls = async (since: string) =>
  ((await (await fetch(`${hubspot.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as { calls: Array<{ method: string; path: string; status: number }> }).calls.map(
    (call) => `${call.method} ${call.path} ${call.status}`,
  );

describe('matching a batch reply to its inputs', () => {
  it('updates by record id: results and context.ids; an input named nowhere is refused with the unattributed errors', () => {
    const outcomes = batchOutcomes(['1', '2', '3'], {
      results: [{ id: '1' }],
      errors: [{ category: 'VALIDATION_ERROR', message: 'Property values were not valid', context: { ids: ['2'] }, errors: [{ message: 'INVALID_INTEGER' }] }, { category: 'INTERNAL', message: 'later' }],
    }, (result) => result.id, 'ids');
    expect([...outcomes.done.keys()]).toEqual(['1']);
    expect(Object.fromEntries(outcomes.refused)).toEqual({ 2: 'VALIDATION_ERROR: Property values were not valid: INVALID_INTEGER', 3: 'INTERNAL: later' });
  });

  it('creates by objectWriteTraceId; a result without one takes the next input in order; successes + refusals = inputs', () => {
    const outcomes = batchOutcomes(['a', 'b', 'c'], {
      results: [{ id: 'n1' }, { id: 'n3', objectWriteTraceId: 'c' }],
      errors: [{ category: 'VALIDATION_ERROR', message: 'bad association', context: { objectWriteTraceId: ['b'] } }],
    }, (result: { id: string; objectWriteTraceId?: string }) => result.objectWriteTraceId, 'objectWriteTraceId');
    expect(Object.fromEntries([...outcomes.done].map(([key, result]) => [key, result.id]))).toEqual({ a: 'n1', c: 'n3' });
    expect([...outcomes.refused.keys()]).toEqual(['b']);
    expect(batchOutcomes(['x'], {}, () => undefined, 'ids').refused.get('x')).toBe('HubSpot answered without a result for it');
  });

  it('splits inputs into HubSpot batches of at most 100', () => {
    expect(inBatches(Array.from({ length: 250 }, (_, index) => index)).map((batch) => batch.length)).toEqual([100, 100, 50]);
  });
});

describe('the client\'s batch calls against the stand-in', () => {
  it('reads, updates (a refused contact alone), and creates notes traced by key, 100 inputs a call, each through the budget', async () => {
    const since = new Date().toISOString();
    acquired.length = 0;
    const ids = [...hubspot.portal().contacts.keys()].slice(0, 3);
    const updated = await crm.updateContacts([{ id: ids[0]!, properties: { jobtitle: 'Head of Sales' } }, { id: ids[1]!, properties: { hs_object_id: '1' } }, { id: '999990', properties: { jobtitle: 'x' } }]);
    expect([...updated.done.keys()]).toEqual([ids[0]]);
    expect(updated.refused.get(ids[1]!)).toContain('READ_ONLY_VALUE');
    expect(updated.refused.get('999990')).toMatch(/^OBJECT_NOT_FOUND/);
    const contacts = await crm.readContacts([ids[0]!, '999990'], ['jobtitle']);
    expect([...contacts.keys()]).toEqual([ids[0]]);
    expect(contacts.get(ids[0]!)).toMatchObject({ jobtitle: 'Head of Sales' });

    const many = [...hubspot.portal().contacts.keys()].slice(0, 30);
    const inputs = Array.from({ length: 120 }, (_, index) => ({ key: `k${index}`, contactId: many[index % many.length]!, html: `<p>note ${index}</p>`, at: new Date() }));
    inputs.push({ key: 'gone', contactId: '999990', html: '<p>nobody</p>', at: new Date() });
    const notes = await crm.createNotes(inputs);
    expect(notes.done.size).toBe(120);
    expect([...notes.refused.keys()]).toEqual(['gone']);
    const first = hubspot.portal().notes.get(notes.done.get('k0')!)!;
    expect(first).toMatchObject({ contactIds: [many[0]], properties: { hs_note_body: '<p>note 0</p>' } });

    const linked = await crm.noteIdsOf([many[0]!, '999990']);
    expect(linked.get(many[0]!)).toEqual(expect.arrayContaining([notes.done.get('k0'), notes.done.get('k30')]));
    expect(linked.has('999990')).toBe(false);
    const read = await crm.readNotes([notes.done.get('k0')!, notes.done.get('k1')!]);
    expect(Object.fromEntries([...read].map(([id, note]) => [id, note.body]))).toEqual({ [notes.done.get('k0')!]: '<p>note 0</p>', [notes.done.get('k1')!]: '<p>note 1</p>' });
    expect(Date.parse(read.get(notes.done.get('k0')!)!.createdAt!)).toBeGreaterThan(Date.now() - 60_000);

    expect((await calls(since)).filter((call) => call.includes('/batch/'))).toEqual([
      'POST /crm/v3/objects/contacts/batch/update 207', 'POST /crm/v3/objects/contacts/batch/read 207',
      'POST /crm/v3/objects/notes/batch/create 201', 'POST /crm/v3/objects/notes/batch/create 207',
      'POST /crm/v4/associations/contacts/notes/batch/read 207', 'POST /crm/v3/objects/notes/batch/read 200',
    ]);
    expect(acquired).toHaveLength(6);
  });

  it('a notes batch whose answer is lost, or that meets a 5xx, is not sent again: the error goes up and nothing is doubled', async () => {
    const [contactId] = [...hubspot.portal().contacts.keys()];
    const count = () => [...hubspot.portal().notes.values()].filter((note) => note.contactIds.includes(contactId!)).length;
    const before = count();
    hubspot.setFaults({ on: 'note', answerLostNext: 1 });
    await expect(crm.createNotes([{ key: contactId!, contactId: contactId!, html: '<p>lost</p>', at: new Date() }])).rejects.toBeInstanceOf(HubSpotUnavailable);
    expect(count()).toBe(before + 1);
    hubspot.setFaults({ on: 'note', serverErrorNext: 1 });
    await expect(crm.createNotes([{ key: contactId!, contactId: contactId!, html: '<p>5xx</p>', at: new Date() }])).rejects.toMatchObject({ status: 502 });
    // A 429 did nothing at HubSpot: that one is sent again.
    hubspot.setFaults({ on: 'note', rateLimitNext: 1 });
    const again = await crm.createNotes([{ key: contactId!, contactId: contactId!, html: '<p>after 429</p>', at: new Date() }]);
    expect(again.done.size).toBe(1);
    expect(count()).toBe(before + 2);
    // Updates are the same write again: those are repeated after a 5xx.
    hubspot.setFaults({ on: 'write', serverErrorNext: 1 });
    expect((await crm.updateContacts([{ id: contactId!, properties: { jobtitle: 'Again' } }])).done.size).toBe(1);
    hubspot.setFaults({ on: 'all' });
  });

  it('creates the product\'s properties in one batch call; a name taken meanwhile counts as created', async () => {
    expect(await crm.createGroup('pe_77', 'Prospect Enrichment: Test')).toBe('created');
    expect(await crm.createGroup('pe_77', 'Prospect Enrichment: Test')).toBe('existed');
    const property = (name: string) => ({ name, label: name, type: 'string' as const, fieldType: 'textarea', groupName: 'pe_77', description: '' });
    const first = await crm.createProperties([property('pe_77_a')]);
    expect([...first.done.keys()]).toEqual(['pe_77_a']);
    const second = await crm.createProperties([property('pe_77_a'), property('pe_77_b'), { ...property('pe_77_c'), fieldType: 'select' }]);
    expect([...second.done.keys()].sort()).toEqual(['pe_77_a', 'pe_77_b']);
    expect(second.refused.get('pe_77_c')).toContain('fieldType select is not valid');
    expect((await crm.contactProperties()).map((each) => each.name)).toEqual(expect.arrayContaining(['pe_77_a', 'pe_77_b', 'industry']));
  });
});
