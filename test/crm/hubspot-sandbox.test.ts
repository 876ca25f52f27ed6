// The HubSpot and chat stand-ins on their own, through plain HTTP (never our
// client): what they answer is what HubSpot and Slack document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatSandbox, type ChatSandbox } from '../../sandbox/chat/server.ts';
import { startHubSpotSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type HubSpotSandbox } from '../../sandbox/hubspot/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';

let hubspot: HubSpotSandbox;
let chat: ChatSandbox;
let accessToken: string;
let refreshToken: string;
const redirectUri = 'http://127.0.0.1:9/callback';

beforeAll(async () => {
  [hubspot, chat] = await Promise.all([startHubSpotSandbox({ world: createWorld(), people: 30, limits: { searchPerSecond: 1000 } }), startChatSandbox()]);
  ({ accessToken, refreshToken } = await connect());
});
afterAll(async () => {
  await Promise.all([hubspot?.close(), chat?.close()]);
});

async function authorize(state: string, decision = 'approve'): Promise<URL> {
  const authorizeUrl = `${hubspot.url}/oauth/authorize?client_id=${SANDBOX_CLIENT_ID}&scope=oauth%20crm.objects.contacts.read&redirect_uri=${encodeURIComponent(redirectUri)}&state=${state}`;
  const page = await fetch(authorizeUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('crm.objects.contacts.read');
  const form = new URLSearchParams({ decision, portal_id: '4000001', client_id: SANDBOX_CLIENT_ID, redirect_uri: redirectUri, state, scope: 'oauth crm.objects.contacts.read' });
  const answer = await fetch(`${hubspot.url}/oauth/authorize/decision`, { method: 'POST', body: form, redirect: 'manual' });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

const tokenCall = (form: Record<string, string>) =>
  fetch(`${hubspot.url}/oauth/v1/token`, { method: 'POST', body: new URLSearchParams({ client_id: SANDBOX_CLIENT_ID, client_secret: SANDBOX_CLIENT_SECRET, ...form }) });

async function connect() {
  const back = await authorize('s1');
  expect(back.searchParams.get('state')).toBe('s1');
  const code = back.searchParams.get('code')!;
  const reply = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  expect(reply.status).toBe(200);
  const body = (await reply.json()) as { access_token: string; refresh_token: string; expires_in: number; hub_id: number; token_type: string };
  expect(body).toMatchObject({ token_type: 'bearer', expires_in: 1800, hub_id: 4000001 });
  // A code is single-use.
  const again = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  expect(again.status).toBe(400);
  expect(await again.json()).toMatchObject({ error: 'invalid_grant', status: 'BAD_AUTH_CODE' });
  return { accessToken: body.access_token, refreshToken: body.refresh_token };
}

const crm = (path: string, init: { method?: string; body?: unknown } = {}, token = accessToken) =>
  fetch(`${hubspot.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

const search = async (body: unknown) => {
  const reply = await crm('/crm/v3/objects/contacts/search', { method: 'POST', body });
  return { status: reply.status, body: (await reply.json()) as { total: number; results: Array<{ id: string; properties: Record<string, string | null> }>; paging?: { next: { after: string } }; category?: string } };
};

describe('HubSpot stand-in', () => {
  it('declining consent sends access_denied back with the state', async () => {
    const back = await authorize('s2', 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('s2');
  });

  it('searches with OR between groups, AND inside, one sort, paging and the default properties', async () => {
    const page = await search({
      filterGroups: [
        { filters: [{ propertyName: 'hubspotscore', operator: 'GTE', value: '90' }, { propertyName: 'email', operator: 'HAS_PROPERTY' }] },
        { filters: [{ propertyName: 'email', operator: 'NOT_HAS_PROPERTY' }] },
      ],
      properties: ['hubspotscore'],
      sorts: [{ propertyName: 'hubspotscore', direction: 'DESCENDING' }],
      limit: 3,
    });
    expect(page.status).toBe(200);
    const scores = page.body.results.map((contact) => Number(contact.properties.hubspotscore));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(Object.keys(page.body.results[0]!.properties)).toEqual(expect.arrayContaining(['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname', 'hubspotscore']));
    expect(page.body.paging?.next.after).toBe('3');
    const everything = await search({ filterGroups: page.body.total ? [
      { filters: [{ propertyName: 'hubspotscore', operator: 'GTE', value: '90' }, { propertyName: 'email', operator: 'HAS_PROPERTY' }] },
      { filters: [{ propertyName: 'email', operator: 'NOT_HAS_PROPERTY' }] },
    ] : [], limit: 200 });
    expect(everything.body.results.some((contact) => contact.properties.email === null)).toBe(true);
    expect(everything.body.results.filter((contact) => contact.properties.email !== null).length).toBeGreaterThan(0);
    expect(everything.body.paging).toBeUndefined();
  });

  it('NOT_IN and NEQ leave unset values out; NOT_HAS_PROPERTY finds them', async () => {
    const notIn = await search({ filterGroups: [{ filters: [{ propertyName: 'jobtitle', operator: 'NOT_IN', values: ['nobody'] }] }], limit: 200 });
    const unset = await search({ filterGroups: [{ filters: [{ propertyName: 'jobtitle', operator: 'NOT_HAS_PROPERTY' }] }], limit: 200 });
    const all = await search({ limit: 200 });
    expect(notIn.body.total + unset.body.total).toBe(all.body.total);
    expect(unset.body.total).toBeGreaterThan(0);
  });

  it('refuses more than 5 groups, 6 filters in a group, 18 in all, a limit above 200 and paging past 10,000', async () => {
    const filter = { propertyName: 'hubspotscore', operator: 'GTE', value: '1' };
    const group = (n: number) => ({ filters: Array.from({ length: n }, () => filter) });
    for (const body of [
      { filterGroups: Array.from({ length: 6 }, () => group(1)) },
      { filterGroups: [group(7)] },
      { filterGroups: [group(6), group(6), group(6), group(1)] },
      { limit: 201 },
      { limit: 100, after: '9950' },
      { filterGroups: [{ filters: [{ propertyName: 'no_such_property', operator: 'EQ', value: 'x' }] }] },
    ]) {
      const reply = await search(body);
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(reply.body.category).toBe('VALIDATION_ERROR');
    }
    expect((await search({ filterGroups: [group(6), group(6), group(6)] })).status).toBe(200);
  });

  it('creates groups and properties once (201, then 409) and refuses unknown properties on update', async () => {
    const group = { name: 'pe_t1', label: 'Test', displayOrder: -1 };
    expect((await crm('/crm/v3/properties/contacts/groups', { method: 'POST', body: group })).status).toBe(201);
    expect((await crm('/crm/v3/properties/contacts/groups', { method: 'POST', body: group })).status).toBe(409);
    const property = { name: 'pe_t1_status', label: 'Status', type: 'enumeration', fieldType: 'select', groupName: 'pe_t1', options: [{ label: 'Completed', value: 'completed', hidden: false }] };
    expect((await crm('/crm/v3/properties/contacts', { method: 'POST', body: property })).status).toBe(201);
    const again = await crm('/crm/v3/properties/contacts', { method: 'POST', body: property });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ category: 'OBJECT_ALREADY_EXISTS' });
    expect((await crm('/crm/v3/properties/contacts', { method: 'POST', body: { ...property, name: 'pe_t1_bad', type: 'number', fieldType: 'select' } })).status).toBe(400);

    const unknown = await crm('/crm/v3/objects/contacts/101', { method: 'PATCH', body: { properties: { pe_t1_nope: 'x' } } });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(await unknown.json())).toContain('PROPERTY_DOESNT_EXIST');
    expect((await crm('/crm/v3/objects/contacts/101', { method: 'PATCH', body: { properties: { pe_t1_status: 'completed' } } })).status).toBe(200);
    const found = await search({ filterGroups: [{ filters: [{ propertyName: 'pe_t1_status', operator: 'EQ', value: 'completed' }] }] });
    expect(found.body.results.map((contact) => contact.id)).toEqual(['101']);

    const batch = await crm('/crm/v3/objects/contacts/batch/update', { method: 'POST', body: { inputs: [{ id: '102', properties: { pe_t1_status: 'completed' } }, { id: '999999', properties: { pe_t1_status: 'completed' } }] } });
    expect(batch.status).toBe(207);
    expect(await batch.json()).toMatchObject({ numErrors: 1 });
  });

  it('creates notes associated with a contact and requires hs_timestamp', async () => {
    const association = [{ to: { id: '101' }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 202 }] }];
    expect((await crm('/crm/v3/objects/notes', { method: 'POST', body: { properties: { hs_note_body: '<p>x</p>' }, associations: association } })).status).toBe(400);
    const created = await crm('/crm/v3/objects/notes', { method: 'POST', body: { properties: { hs_timestamp: new Date().toISOString(), hs_note_body: '<p>x</p>' }, associations: association } });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const read = await crm(`/crm/v3/objects/notes/${id}?associations=contacts`);
    expect(await read.json()).toMatchObject({ associations: { contacts: { results: [{ id: '101' }] } } });
  });

  describe('batch endpoints, as HubSpot documents them', () => {
    const json = async (reply: Response) => ({ status: reply.status, body: (await reply.json()) as Record<string, unknown> & { results: Array<Record<string, unknown>>; errors?: Array<Record<string, unknown>> } });
    const association = (id: string) => [{ to: { id }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 202 }] }];
    const note = (id: string, trace?: string) => ({ properties: { hs_timestamp: new Date().toISOString(), hs_note_body: `<p>batch ${id}</p>` }, associations: association(id), ...(trace ? { objectWriteTraceId: trace } : {}) });

    it('batch/update: 200 when every contact was written, 207 naming each refused one by context.ids; each result keeps its objectWriteTraceId', async () => {
      const all = await json(await crm('/crm/v3/objects/contacts/batch/update', { method: 'POST', body: { inputs: [{ id: '104', properties: { jobtitle: 'CFO' }, objectWriteTraceId: 't104' }] } }));
      expect(all.status).toBe(200);
      expect(all.body.results[0]).toMatchObject({ id: '104', objectWriteTraceId: 't104', properties: { jobtitle: 'CFO' } });
      const some = await json(await crm('/crm/v3/objects/contacts/batch/update', {
        method: 'POST', body: { inputs: [{ id: '105', properties: { jobtitle: 'CTO' } }, { id: '106', properties: { hs_object_id: '1' } }, { id: '999998', properties: { jobtitle: 'x' } }] },
      }));
      expect(some.status).toBe(207);
      expect(some.body.results.map((result) => result.id)).toEqual(['105']);
      expect(some.body.numErrors).toBe(2);
      expect(some.body.errors!.map((error) => ({ category: error.category, context: error.context }))).toEqual([
        { category: 'VALIDATION_ERROR', context: { ids: ['106'] } }, { category: 'OBJECT_NOT_FOUND', context: { ids: ['999998'] } },
      ]);
      expect(some.body.errors![0]).toMatchObject({ status: 'error', errors: [], links: {} });
      const tooMany = await crm('/crm/v3/objects/contacts/batch/update', { method: 'POST', body: { inputs: Array.from({ length: 101 }, (_, index) => ({ id: String(101 + index), properties: {} })) } });
      expect(tooMany.status).toBe(400);
    });

    it('batch/read: the asked properties by id; ids that name nothing are a 207 error', async () => {
      const read = await json(await crm('/crm/v3/objects/contacts/batch/read', { method: 'POST', body: { inputs: [{ id: '104' }, { id: '999997' }], properties: ['jobtitle'], propertiesWithHistory: [] } }));
      expect(read.status).toBe(207);
      expect(read.body.results).toEqual([expect.objectContaining({ id: '104', properties: { jobtitle: 'CFO' } })]);
      expect(read.body.errors![0]).toMatchObject({ category: 'OBJECT_NOT_FOUND', context: { ids: ['999997'] } });
    });

    it('notes batch/create: with a trace id on every input a refused note fails alone (207, context.objectWriteTraceId); without, the batch fails whole; never deduplicated', async () => {
      const before = hubspot.portal().notes.size;
      const partial = await json(await crm('/crm/v3/objects/notes/batch/create', { method: 'POST', body: { inputs: [note('104', 'a'), note('999996', 'b')] } }));
      expect(partial.status).toBe(207);
      expect(partial.body.results).toEqual([expect.objectContaining({ objectWriteTraceId: 'a' })]);
      expect(partial.body.errors![0]).toMatchObject({ category: 'VALIDATION_ERROR', context: { objectWriteTraceId: ['b'] } });
      expect(hubspot.portal().notes.size).toBe(before + 1);
      const whole = await crm('/crm/v3/objects/notes/batch/create', { method: 'POST', body: { inputs: [note('104'), note('999996')] } });
      expect(whole.status).toBe(400);
      expect(hubspot.portal().notes.size).toBe(before + 1);
      const created = await json(await crm('/crm/v3/objects/notes/batch/create', { method: 'POST', body: { inputs: [note('104', 'c')] } }));
      expect(created.status).toBe(201);
      // The same note again is a second note: batch create is not idempotent.
      expect((await crm('/crm/v3/objects/notes/batch/create', { method: 'POST', body: { inputs: [note('104', 'c')] } })).status).toBe(201);
      expect(hubspot.portal().notes.size).toBe(before + 3);
      const linked = await json(await crm('/crm/v4/associations/contacts/notes/batch/read', { method: 'POST', body: { inputs: [{ id: '104' }, { id: '107' }] } }));
      expect(linked.status).toBe(207);
      const toNotes = (linked.body.results[0]!.to as Array<{ toObjectId: string; associationTypes: unknown[] }>);
      expect(linked.body.results[0]!.from).toEqual({ id: '104' });
      expect(toNotes).toHaveLength(3);
      expect(toNotes[0]!.associationTypes).toEqual([expect.objectContaining({ category: 'HUBSPOT_DEFINED', typeId: 201 })]);
      expect(linked.body.errors![0]).toMatchObject({ context: { fromObjectId: ['107'] } });
      const bodies = await json(await crm('/crm/v3/objects/notes/batch/read', { method: 'POST', body: { inputs: toNotes.map((each) => ({ id: each.toObjectId })), properties: ['hs_note_body'], propertiesWithHistory: [] } }));
      expect(bodies.status).toBe(200);
      expect(bodies.body.results.map((each) => (each.properties as { hs_note_body: string }).hs_note_body)).toEqual(['<p>batch 104</p>', '<p>batch 104</p>', '<p>batch 104</p>']);
    });

    it('an answer lost on the way back: the notes exist though the caller heard nothing', async () => {
      const before = hubspot.portal().notes.size;
      hubspot.setFaults({ on: 'note', answerLostNext: 1 });
      await expect(crm('/crm/v3/objects/notes/batch/create', { method: 'POST', body: { inputs: [note('108', 'lost')] } })).rejects.toThrow();
      expect(hubspot.portal().notes.size).toBe(before + 1);
      hubspot.setFaults({ on: 'all' });
      expect((await crm('/crm/v3/objects/notes/batch/create', { method: 'POST', body: { inputs: [note('108', 'next')] } })).status).toBe(201);
    });

    it('properties batch/create: 201, then a 207 naming the taken name', async () => {
      await crm('/crm/v3/properties/contacts/groups', { method: 'POST', body: { name: 'pe_t2', label: 'Test 2' } });
      const property = (name: string) => ({ name, label: name, type: 'string', fieldType: 'text', groupName: 'pe_t2' });
      expect((await crm('/crm/v3/properties/contacts/batch/create', { method: 'POST', body: { inputs: [property('pe_t2_a')] } })).status).toBe(201);
      const again = await json(await crm('/crm/v3/properties/contacts/batch/create', { method: 'POST', body: { inputs: [property('pe_t2_a'), property('pe_t2_b')] } }));
      expect(again.status).toBe(207);
      expect(again.body.results.map((each) => each.name)).toEqual(['pe_t2_b']);
      expect(again.body.errors![0]).toMatchObject({ category: 'OBJECT_ALREADY_EXISTS', context: { name: ['pe_t2_a'] } });
    });

    it('compares datetimes as moments, epoch milliseconds or ISO 8601', async () => {
      await crm('/crm/v3/properties/contacts', { method: 'POST', body: { name: 'pe_t2_when', label: 'When', type: 'datetime', fieldType: 'date', groupName: 'pe_t2' } });
      await crm('/crm/v3/objects/contacts/batch/update', { method: 'POST', body: { inputs: [{ id: '109', properties: { pe_t2_when: '2026-01-10T00:00:00.000Z' } }, { id: '110', properties: { pe_t2_when: '2026-03-10T00:00:00.000Z' } }] } });
      const before = await search({ filterGroups: [{ filters: [{ propertyName: 'pe_t2_when', operator: 'LT', value: String(Date.parse('2026-02-01T00:00:00Z')) }] }] });
      expect(before.body.results.map((contact) => contact.id)).toEqual(['109']);
    });
  });

  it('sends rate-limit headers, answers 429 past the search limit, and injected faults', async () => {
    const properties = await crm('/crm/v3/properties/contacts');
    expect(properties.headers.get('x-hubspot-ratelimit-max')).toBe('110');
    expect(Number(properties.headers.get('x-hubspot-ratelimit-remaining'))).toBeLessThan(110);
    await fetch(`${hubspot.url}/__admin/limits`, { method: 'POST', body: JSON.stringify({ searchPerSecond: 5 }) });
    const burst = await Promise.all(Array.from({ length: 8 }, () => search({ limit: 1 })));
    const limited = burst.filter((reply) => reply.status === 429);
    expect(limited.length).toBeGreaterThanOrEqual(3);
    expect(limited[0]!.body).toMatchObject({ errorType: 'RATE_LIMIT', policyName: 'SECONDLY' });
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    hubspot.setFaults({ rateLimitNext: 1, serverErrorNext: 1, on: 'write' });
    const patch = () => crm('/crm/v3/objects/contacts/103', { method: 'PATCH', body: { properties: { jobtitle: 'x' } } });
    const first = await patch();
    expect(first.status).toBe(429);
    expect(await first.json()).toMatchObject({ policyName: 'TEN_SECONDLY_ROLLING', message: 'You have reached your ten_secondly_rolling limit.' });
    expect((await patch()).status).toBe(502);
    expect((await patch()).status).toBe(200);
  });

  it('refreshes, reports token info, and a revoked refresh token is dead (BAD_REFRESH_TOKEN) with its access tokens', async () => {
    const refreshed = await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(refreshed.status).toBe(200);
    const { access_token: fresh, refresh_token: kept } = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(kept).toBe(refreshToken);
    const info = await fetch(`${hubspot.url}/oauth/v1/access-tokens/${fresh}`);
    expect(await info.json()).toMatchObject({ hub_id: 4000001, user: 'owner@portal.example', token_type: 'access' });
    expect((await fetch(`${hubspot.url}/oauth/v1/refresh-tokens/${refreshToken}`, { method: 'DELETE' })).status).toBe(204);
    const dead = await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(dead.status).toBe(400);
    expect(await dead.json()).toMatchObject({ error: 'invalid_grant', status: 'BAD_REFRESH_TOKEN' });
    expect((await crm('/crm/v3/properties/contacts', {}, fresh)).status).toBe(401);
  });
});

describe('chat webhook stand-in', () => {
  const hook = '/services/T1/B1/secret';
  const post = (body: unknown) => fetch(`${chat.url}${hook}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('answers ok, invalid_payload, no_text, and the errors it is told to give', async () => {
    const ok = await post({ text: 'hello', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }] });
    expect([ok.status, await ok.text()]).toEqual([200, 'ok']);
    expect(chat.messages(hook)).toHaveLength(1);
    const bad = await post('{not json');
    expect([bad.status, await bad.text()]).toEqual([400, 'invalid_payload']);
    const empty = await post({});
    expect([empty.status, await empty.text()]).toEqual([400, 'no_text']);
    await fetch(`${chat.url}/__admin/hooks`, { method: 'POST', body: JSON.stringify({ hook, error: 'channel_is_archived', times: 1 }) });
    const archived = await post({ text: 'x' });
    expect([archived.status, await archived.text()]).toEqual([410, 'channel_is_archived']);
    expect((await post({ text: 'x' })).status).toBe(200);
    const unknown = await fetch(`${chat.url}/services/T1/B1`, { method: 'POST', body: '{}' });
    expect([unknown.status, await unknown.text()]).toEqual([404, 'no_service']);
  });
});
