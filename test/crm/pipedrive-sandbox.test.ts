// The Pipedrive stand-in on its own, through plain HTTP (never our client):
// what it answers is what Pipedrive's documentation and OpenAPI files say.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startPipedriveSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type PipedriveSandbox } from '../../sandbox/pipedrive/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';

let pipedrive: PipedriveSandbox;
let accessToken: string;
let refreshToken: string;
const redirectUri = 'http://127.0.0.1:9/callback';
const basic = `Basic ${Buffer.from(`${SANDBOX_CLIENT_ID}:${SANDBOX_CLIENT_SECRET}`).toString('base64')}`;

beforeAll(async () => {
  pipedrive = await startPipedriveSandbox({ world: createWorld(), people: 20, limits: { burstPer2s: 1000 } });
  ({ accessToken, refreshToken } = await connect());
});
afterAll(async () => {
  await pipedrive?.close();
});
beforeEach(() => pipedrive.setFaults({ rateLimitNext: 0, serverErrorNext: 0, answerLostNext: 0, on: 'all' }));

async function decide(state: string, decision: 'approve' | 'deny'): Promise<URL> {
  const page = await fetch(`${pipedrive.url}/oauth/authorize?client_id=${SANDBOX_CLIENT_ID}&state=${state}&redirect_uri=${encodeURIComponent(redirectUri)}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('Allow and Install');
  expect(html).toContain('contacts:full');
  const form = new URLSearchParams({ decision, client_id: SANDBOX_CLIENT_ID, redirect_uri: redirectUri, state });
  const answer = await fetch(`${pipedrive.url}/oauth/authorize/decision`, { method: 'POST', body: form, redirect: 'manual' });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

const tokenCall = (form: Record<string, string>, authorization = basic) =>
  fetch(`${pipedrive.url}/oauth/token`, { method: 'POST', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });

async function connect() {
  const back = await decide('s1', 'approve');
  expect(back.searchParams.get('state')).toBe('s1');
  const code = back.searchParams.get('code')!;
  const reply = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  expect(reply.status).toBe(200);
  const body = (await reply.json()) as { access_token: string; refresh_token: string; expires_in: number; token_type: string; scope: string; api_domain: string };
  expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'base,contacts:full,admin', api_domain: pipedrive.url });
  // A code is exchanged once.
  const again = await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  expect(again.status).toBe(400);
  expect(await again.json()).toMatchObject({ success: false, message: 'Invalid grant: authorization_code is invalid' });
  return { accessToken: body.access_token, refreshToken: body.refresh_token };
}

const api = (path: string, init: { method?: string; body?: unknown } = {}, token = accessToken) =>
  fetch(`${pipedrive.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });

interface Field {
  id: number;
  key: string;
  name: string;
  field_type: string;
  options: Array<{ id: number; label: string }> | null;
  edit_flag: boolean;
}

const fields = async () => ((await (await api('/api/v1/personFields')).json()) as { data: Field[] }).data;
const field = async (name: string) => (await fields()).find((each) => each.name === name)!;

describe('OAuth', () => {
  it('sends a declined consent back with error=access_denied and the state', async () => {
    const back = await decide('s2', 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('s2');
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('refuses an unknown client id on the consent page, and bad client credentials at the token endpoint', async () => {
    expect((await fetch(`${pipedrive.url}/oauth/authorize?client_id=nobody&redirect_uri=${encodeURIComponent(redirectUri)}`)).status).toBe(400);
    const wrong = await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken }, `Basic ${Buffer.from(`${SANDBOX_CLIENT_ID}:wrong`).toString('base64')}`);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ message: 'Invalid client: client is invalid' });
    const none = await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken }, '');
    expect(none.status).toBe(401);
    expect((await tokenCall({})).status).toBe(400);
  });

  it('refreshes with the refresh token, and names the company and user at /v1/users/me', async () => {
    const reply = await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(reply.status).toBe(200);
    const body = (await reply.json()) as { access_token: string; refresh_token: string };
    expect(body.refresh_token).toBe(refreshToken);
    const me = await api('/api/v1/users/me', {}, body.access_token);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ success: true, data: { company_id: 7_000_001, email: 'admin@company.example', is_you: true } });
  });

  it('answers 401 without a token, with an unknown one, and with one expired', async () => {
    expect((await fetch(`${pipedrive.url}/api/v1/users/me`)).status).toBe(401);
    expect((await api('/api/v1/users/me', {}, 'nope')).status).toBe(401);
    const fresh = (await (await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken })).json()) as { access_token: string };
    await fetch(`${pipedrive.url}/__admin/expire-access-tokens`, { method: 'POST' });
    const expired = await api('/api/v1/users/me', {}, fresh.access_token);
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ success: false, errorCode: 401 });
    accessToken = ((await (await tokenCall({ grant_type: 'refresh_token', refresh_token: refreshToken })).json()) as { access_token: string }).access_token;
  });
});

describe('person fields', () => {
  it('lists the company fields with hash keys for custom ones, and makes an enum field with option ids', async () => {
    const all = await fields();
    expect(all.find((each) => each.key === 'name')).toMatchObject({ edit_flag: false });
    const score = all.find((each) => each.name === 'Lead score')!;
    expect(score).toMatchObject({ field_type: 'double', edit_flag: true });
    expect(score.key).toMatch(/^[0-9a-f]{40}$/);
    const made = await api('/api/v1/personFields', { method: 'POST', body: { name: 'Stage', field_type: 'enum', options: [{ label: 'One' }, { label: 'Two' }] } });
    expect(made.status).toBe(200);
    const body = (await made.json()) as { data: Field };
    expect(body.data.options!.map((option) => option.label)).toEqual(['One', 'Two']);
    expect(typeof body.data.options![0]!.id).toBe('number');
    // An enum without options, and an unknown type, are refused.
    expect((await api('/api/v1/personFields', { method: 'POST', body: { name: 'Empty', field_type: 'enum' } })).status).toBe(400);
    expect((await api('/api/v1/personFields', { method: 'POST', body: { name: 'Odd', field_type: 'string' } })).status).toBe(400);
    expect((await api(`/api/v1/personFields/${body.data.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await fields()).some((each) => each.id === body.data.id)).toBe(false);
  });

  it('lets only an admin make fields (403 otherwise)', async () => {
    await fetch(`${pipedrive.url}/__admin/user`, { method: 'POST', body: JSON.stringify({ isAdmin: false }) });
    try {
      const refused = await api('/api/v1/personFields', { method: 'POST', body: { name: 'Nope', field_type: 'varchar' } });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ success: false });
    } finally {
      await fetch(`${pipedrive.url}/__admin/user`, { method: 'POST', body: JSON.stringify({ isAdmin: true }) });
    }
  });
});

describe('persons (API v2)', () => {
  it('pages persons by cursor, and reads them by ids', async () => {
    const first = (await (await api('/api/v2/persons?limit=10')).json()) as { data: Array<{ id: number; emails: unknown[]; custom_fields: Record<string, unknown> }>; additional_data: { next_cursor: string | null } };
    expect(first.data).toHaveLength(10);
    expect(first.data[0]!.emails[0]).toMatchObject({ primary: true, label: 'work' });
    expect(first.additional_data.next_cursor).toEqual(expect.any(String));
    const second = (await (await api(`/api/v2/persons?limit=10&cursor=${first.additional_data.next_cursor}`)).json()) as { data: Array<{ id: number }> };
    expect(second.data[0]!.id).toBe(first.data[9]!.id + 1);
    const byIds = (await (await api('/api/v2/persons?ids=2,5,999')).json()) as { data: Array<{ id: number }> };
    expect(byIds.data.map((person) => person.id)).toEqual([2, 5]);
    expect((await api('/api/v2/persons?limit=501')).status).toBe(400);
    expect((await api('/api/v2/persons?sort_by=name')).status).toBe(400);
  });

  it('writes custom fields in their types and refuses a number sent as text, an unknown option, or an unknown parameter', async () => {
    const score = await field('Lead score');
    const source = await field('Lead source');
    const ok = await api('/api/v2/persons/3', { method: 'PATCH', body: { custom_fields: { [score.key]: 42, [source.key]: source.options![1]!.id } } });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { custom_fields: Record<string, unknown> } }).data.custom_fields).toMatchObject({ [score.key]: 42, [source.key]: source.options![1]!.id });
    const asText = await api('/api/v2/persons/3', { method: 'PATCH', body: { custom_fields: { [score.key]: '42' } } });
    expect(asText.status).toBe(400);
    expect(await asText.json()).toMatchObject({ success: false, error: expect.stringContaining('must be a number') });
    expect((await api('/api/v2/persons/3', { method: 'PATCH', body: { custom_fields: { [source.key]: 1 } } })).status).toBe(400);
    expect((await api('/api/v2/persons/3', { method: 'PATCH', body: { custom_fields: { ['f'.repeat(40)]: 'x' } } })).status).toBe(400);
    expect((await api('/api/v2/persons/3', { method: 'PATCH', body: { score: 1 } })).status).toBe(400);
    expect((await api('/api/v2/persons/99999', { method: 'PATCH', body: {} })).status).toBe(404);
  });
});

describe('filters', () => {
  it('finds persons by a saved filter: a number compared, an empty enum asked for with IS NULL', async () => {
    const score = await field('Lead score');
    const source = await field('Lead source');
    const conditions = {
      glue: 'and',
      conditions: [
        { glue: 'and', conditions: [{ object: 'person', field_id: String(score.id), operator: '>=', value: 90, extra_value: null }] },
        { glue: 'or', conditions: [{ object: 'person', field_id: String(source.id), operator: 'IS NULL', value: null, extra_value: null }] },
      ],
    };
    const made = await api('/api/v1/filters', { method: 'POST', body: { name: 'Hot', type: 'people', conditions } });
    expect(made.status).toBe(200);
    const filter = ((await made.json()) as { data: { id: number } }).data;
    const found = (await (await api(`/api/v2/persons?filter_id=${filter.id}&limit=500`)).json()) as { data: Array<{ id: number; custom_fields: Record<string, number | null> }> };
    expect(found.data.length).toBeGreaterThan(3);
    expect(found.data.every((person) => person.custom_fields[score.key]! >= 90 && person.custom_fields[source.key] === null)).toBe(true);
    // `!=` does not match an empty field.
    const other = { ...conditions, conditions: [conditions.conditions[0]!, { glue: 'or', conditions: [{ object: 'person', field_id: String(source.id), operator: '!=', value: source.options![0]!.id, extra_value: null }] }] };
    expect((await api(`/api/v1/filters/${filter.id}`, { method: 'PUT', body: { conditions: other } })).status).toBe(200);
    expect((await api('/api/v2/persons/1', { method: 'PATCH', body: { custom_fields: { [source.key]: source.options![1]!.id } } })).status).toBe(200);
    const onlySet = (await (await api(`/api/v2/persons?filter_id=${filter.id}`)).json()) as { data: Array<{ id: number }> };
    expect(onlySet.data.map((person) => person.id)).toEqual([1]);
    // Bad conditions are refused.
    expect((await api('/api/v1/filters', { method: 'POST', body: { name: 'Bad', type: 'people', conditions: { glue: 'and', conditions: [{ glue: 'and', conditions: [{ object: 'person', field_id: '1', operator: '~', value: 1 }] }] } } })).status).toBe(400);
    const listed = (await (await api('/api/v1/filters?type=people')).json()) as { data: Array<{ id: number; name: string }> };
    expect(listed.data.map((each) => each.name)).toContain('Hot');
  });
});

describe('notes', () => {
  it('adds a note to a person and lists it by person and start date', async () => {
    const made = await api('/api/v1/notes', { method: 'POST', body: { content: '<p>Hello</p><script>x()</script>', person_id: 4 } });
    expect(made.status).toBe(200);
    const note = ((await made.json()) as { data: { id: number; content: string; add_time: string } }).data;
    expect(note.content).toBe('<p>Hello</p>');
    expect(note.add_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const today = new Date().toISOString().slice(0, 10);
    const listed = (await (await api(`/api/v1/notes?person_id=4&start_date=${today}`)).json()) as { data: Array<{ id: number }>; additional_data: { pagination: { more_items_in_collection: boolean } } };
    expect(listed.data.map((each) => each.id)).toContain(note.id);
    expect((await (await api('/api/v1/notes?person_id=4&start_date=2999-01-01')).json()) as { data: unknown[] }).toMatchObject({ data: [] });
    expect((await api('/api/v1/notes', { method: 'POST', body: { content: 'x' } })).status).toBe(400);
    expect((await api('/api/v1/notes', { method: 'POST', body: { content: 'x', person_id: 99999 } })).status).toBe(400);
  });
});

describe('limits', () => {
  it('answers with the burst and daily token headers, spending each operation\u2019s token cost', async () => {
    const first = await api('/api/v2/persons?limit=1');
    const before = Number(first.headers.get('x-daily-ratelimit-token-remaining'));
    expect(first.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(first.headers.get('x-ratelimit-reset')).toEqual(expect.any(String));
    expect(first.headers.get('x-daily-ratelimit-token-limit')).toBe('30000');
    const single = await api('/api/v2/persons/1');
    expect(Number(single.headers.get('x-daily-ratelimit-token-remaining'))).toBe(before - 1);
    const list = await api('/api/v1/personFields');
    expect(Number(list.headers.get('x-daily-ratelimit-token-remaining'))).toBe(before - 1 - 20);
  });

  it('answers 429 once the daily budget is spent, and on a burst fault', async () => {
    pipedrive.setDailySpent(30_000);
    const spent = await api('/api/v2/persons/1');
    expect(spent.status).toBe(429);
    expect(spent.headers.get('x-daily-ratelimit-token-remaining')).toBe('0');
    pipedrive.setDailySpent(0);
    pipedrive.setFaults({ rateLimitNext: 1, on: 'persons' });
    const limited = await api('/api/v2/persons/1');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await api('/api/v2/persons/1')).status).toBe(200);
  });

  it('holds a burst window of calls per token: the one over it is 429', async () => {
    const small = await startPipedriveSandbox({ world: createWorld(), people: 3, limits: { burstPer2s: 3 } });
    try {
      const back = await fetch(`${small.url}/__admin/approve?authorize_url=${encodeURIComponent(`${small.url}/oauth/authorize?client_id=${SANDBOX_CLIENT_ID}&redirect_uri=${encodeURIComponent(redirectUri)}`)}`, { redirect: 'manual' });
      const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
      const token = ((await (await fetch(`${small.url}/oauth/token`, { method: 'POST', headers: { authorization: basic }, body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }) })).json()) as { access_token: string }).access_token;
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${small.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${token}` } })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await small.close();
    }
  });
});
