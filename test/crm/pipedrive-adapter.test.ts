// The Pipedrive adapter and OAuth against the stand-in, over HTTP: consent to
// grant, our fields, candidates through a saved filter, per-person writes,
// notes never written twice, and what each limit, expiry or outage does.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CRM_FIELDS } from '../../domain/crm/fields.ts';
import type { CrmAdapter, CrmCallBudget, CrmGrant, OwnFieldKeyStore } from '../../integrations/crm/adapter.ts';
import { CrmAuthRevoked, CrmConfigRejected, CrmRejected, CrmUnavailable } from '../../integrations/crm/errors.ts';
import { createPipedriveAdapter, PIPEDRIVE_DEFAULT_SCORE_FIELD } from '../../integrations/pipedrive/adapter.ts';
import { loadPipedriveConfig, type PipedriveConfig } from '../../integrations/pipedrive/config.ts';
import { PIPEDRIVE_BUDGET_WINDOWS } from '../../integrations/pipedrive/limits.ts';
import { createPipedriveOAuth } from '../../integrations/pipedrive/oauth.ts';
import { ConfigError } from '../../lib/env.ts';
import { startPipedriveSandbox, SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, type PipedriveSandbox } from '../../sandbox/pipedrive/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';

/** A budget that really counts: at most `max` calls in any `windowMs`, waiting for room; hold-offs recorded. */
class CountingBudget implements CrmCallBudget {
  acquired = 0;
  holdOffs: number[] = [];
  private taken: number[] = [];
  private heldUntil = 0;
  private readonly window = PIPEDRIVE_BUDGET_WINDOWS.burst!;
  async acquire(kind: string) {
    expect(kind).toBe('burst');
    for (;;) {
      const now = Date.now();
      this.taken = this.taken.filter((at) => at > now - this.window.windowMs);
      if (now >= this.heldUntil && this.taken.length < this.window.max) {
        this.taken.push(now);
        this.acquired++;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  async holdOff(ms: number) {
    this.holdOffs.push(ms);
    this.heldUntil = Math.max(this.heldUntil, Date.now() + ms);
  }
}

class MemoryKeys implements OwnFieldKeyStore {
  keys = new Map<number, Partial<Record<(typeof CRM_FIELDS)[number]['field'], string>>>();
  async get(productId: number) {
    return this.keys.get(productId) ?? null;
  }
  async save(productId: number, keys: Partial<Record<(typeof CRM_FIELDS)[number]['field'], string>>) {
    this.keys.set(productId, { ...keys });
  }
}

let pipedrive: PipedriveSandbox;
let config: PipedriveConfig;
let grant: CrmGrant;
const redirectUri = 'http://127.0.0.1:9/callback';
const product = { id: 11, name: 'PipelineIQ' };

beforeAll(async () => {
  // The stand-in's burst window is per token, and the tests' adapters share one: each test's budget keeps its own window.
  pipedrive = await startPipedriveSandbox({ world: createWorld(), people: 30, limits: { burstPer2s: 10_000 } });
  config = loadPipedriveConfig({
    PIPEDRIVE_CLIENT_ID: SANDBOX_CLIENT_ID, PIPEDRIVE_CLIENT_SECRET: SANDBOX_CLIENT_SECRET, PIPEDRIVE_OAUTH_BASE: pipedrive.url, PIPEDRIVE_API_BASE: 'http://127.0.0.1:9',
  })!;
  grant = await connect();
});
afterAll(async () => {
  await pipedrive?.close();
});
beforeEach(() => pipedrive.setFaults({ rateLimitNext: 0, serverErrorNext: 0, answerLostNext: 0, on: 'all' }));

async function consent(decision: 'approve' | 'deny'): Promise<URL> {
  const authorizeUrl = createPipedriveOAuth(config).authorizeUrl({ state: 'st-1', redirectUri, codeChallenge: null });
  const back = await fetch(`${pipedrive.url}/__admin/approve?decision=${decision}&authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
  return new URL(back.headers.get('location')!);
}

async function connect(): Promise<CrmGrant> {
  const back = await consent('approve');
  expect(back.searchParams.get('state')).toBe('st-1');
  return createPipedriveOAuth(config).exchangeCode({ code: back.searchParams.get('code')!, redirectUri, codeVerifier: null });
}

/** The connection's access token, refreshed through OAuth when the adapter reports it refused. */
function tokenSource(from: CrmGrant) {
  let current = from.accessToken;
  let refreshing: Promise<string> | null = null;
  // As the stored connection does: a token refused by several calls at once is refreshed once.
  const source = async (options?: { refused?: string }) => {
    if (options?.refused !== undefined && options.refused === current) {
      refreshing ??= createPipedriveOAuth(config).refresh(from.refreshToken, from.apiBase).then((set) => {
        source.refreshes++;
        current = set.accessToken;
        refreshing = null;
        return current;
      });
      return refreshing;
    }
    return current;
  };
  source.refreshes = 0;
  return source;
}

function adapterFor(options: { budget?: CountingBudget; keys?: MemoryKeys; from?: CrmGrant; sleeps?: number[] } = {}) {
  const from = options.from ?? grant;
  const budget = options.budget ?? new CountingBudget();
  const keys = options.keys ?? new MemoryKeys();
  const accessToken = tokenSource(from);
  const sleeps = options.sleeps ?? [];
  const adapter = createPipedriveAdapter({
    config, connection: { accountId: 1, provider: 'pipedrive', portalId: from.portalId, apiBase: from.apiBase }, accessToken, budget, fieldKeys: keys,
    retry: { serverErrorBaseMs: 1 }, sleep: async (ms) => void sleeps.push(ms),
  });
  return { adapter, budget, keys, accessToken, sleeps };
}

const state = async () => (await (await fetch(`${pipedrive.url}/__admin/state`)).json()) as {
  fields: Array<{ id: number; key: string; name: string; field_type: string; options: Array<{ id: number; label: string }> | null }>;
  persons: Array<{ id: number; name: string; custom_fields: Record<string, unknown> }>;
  notes: Array<{ id: number; person_id: number; content: string }>;
  filters: Array<{ id: number; name: string }>;
  grants: Array<{ revoked: boolean }>;
};
const apiCalls = (match: (call: { method: string; path: string }) => boolean) => pipedrive.calls().filter((call) => call.path.startsWith('/api/') && match(call));
const ownFieldCount = async () => (await state()).fields.filter((field) => field.name.endsWith(`(Prospect Enrichment #${product.id})`)).length;
const scoreKey = async () => (await state()).fields.find((field) => field.name === 'Lead score')!.key;

describe('configuration and OAuth', () => {
  it('is off without a client id and secret, and refuses half of them', () => {
    expect(loadPipedriveConfig({})).toBeNull();
    expect(() => loadPipedriveConfig({ PIPEDRIVE_CLIENT_ID: 'x' })).toThrow(ConfigError);
    expect(loadPipedriveConfig({ PIPEDRIVE_CLIENT_ID: 'x', PIPEDRIVE_CLIENT_SECRET: 'y' })).toMatchObject({ oauthBase: 'https://oauth.pipedrive.com', apiBase: 'https://api.pipedrive.com', limits: { callsPer2s: 70 } });
    expect(PIPEDRIVE_DEFAULT_SCORE_FIELD).toBeNull();
  });

  it('turns the consent into a grant naming the company, the user, the scopes and the api_domain', () => {
    expect(grant).toMatchObject({ portalId: '7000001', connectedUser: 'admin@company.example', scopes: ['base', 'contacts:full', 'admin'], apiBase: pipedrive.url });
    expect(grant.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3_500_000);
    const url = new URL(createPipedriveOAuth(config).authorizeUrl({ state: 'abc', redirectUri, codeChallenge: null }));
    expect(`${url.origin}${url.pathname}`).toBe(`${pipedrive.url}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({ client_id: SANDBOX_CLIENT_ID, redirect_uri: redirectUri, state: 'abc' });
  });

  it('reports a declined consent, refreshes, and tells a refused client from a dead grant', async () => {
    expect((await consent('deny')).searchParams.get('error')).toBe('access_denied');
    const oauth = createPipedriveOAuth(config);
    const refreshed = await oauth.refresh(grant.refreshToken, grant.apiBase);
    expect(refreshed.accessToken).not.toBe(grant.accessToken);
    expect(refreshed).toMatchObject({ refreshToken: grant.refreshToken, apiBase: pipedrive.url });
    await expect(oauth.refresh('rt-unknown', grant.apiBase)).rejects.toBeInstanceOf(CrmAuthRevoked);
    await expect(createPipedriveOAuth({ ...config, clientSecret: 'wrong' }).refresh(grant.refreshToken, grant.apiBase)).rejects.toBeInstanceOf(CrmConfigRejected);
    await expect(oauth.exchangeCode({ code: 'code-none', redirectUri, codeVerifier: null })).rejects.toBeInstanceOf(CrmAuthRevoked);
  });

  it('revokes a grant (and counts one already revoked as done); its tokens stop working', async () => {
    const other = await connect();
    const oauth = createPipedriveOAuth(config);
    await oauth.revoke(other.refreshToken, other.apiBase);
    await oauth.revoke(other.refreshToken, other.apiBase);
    await expect(oauth.refresh(other.refreshToken, other.apiBase)).rejects.toBeInstanceOf(CrmAuthRevoked);
    // The adapter refreshes once after the 401, is refused, and says the grant is gone.
    const { adapter } = adapterFor({ from: other });
    await expect(adapter.fieldMetadata()).rejects.toBeInstanceOf(CrmAuthRevoked);
  });
});

describe('our fields', () => {
  it('are made once, idempotent when called again and when called at once, as an enum, texts, varchars and a date', async () => {
    const keys = new MemoryKeys();
    const { adapter } = adapterFor({ keys });
    const [first, second] = await Promise.all([adapter.ensureOwnFields(product), adapter.ensureOwnFields(product)]);
    expect(first).toEqual({ ready: true });
    expect(second).toEqual({ ready: true });
    expect(await ownFieldCount()).toBe(CRM_FIELDS.length);
    const posts = apiCalls((call) => call.method === 'POST' && call.path === '/api/v1/personFields').length;
    expect(posts).toBe(CRM_FIELDS.length);
    expect(await adapter.ensureOwnFields(product)).toEqual({ ready: true });
    expect(apiCalls((call) => call.method === 'POST' && call.path === '/api/v1/personFields')).toHaveLength(posts);
    const saved = keys.keys.get(product.id)!;
    expect(Object.keys(saved).sort()).toEqual(CRM_FIELDS.map((field) => field.field).sort());
    const byKey = new Map((await state()).fields.map((field) => [field.key, field]));
    expect(byKey.get(saved.status!)).toMatchObject({ field_type: 'enum', options: [{ label: 'In progress' }, { label: 'Completed' }, { label: 'Failed' }] });
    expect(byKey.get(saved.prospect_summary!)!.field_type).toBe('text');
    expect(byKey.get(saved.company_industry!)!.field_type).toBe('varchar');
    expect(byKey.get(saved.enriched_at!)!.field_type).toBe('date');
  });

  it('settles two processes making them at once on the same fields, the duplicates deleted', async () => {
    const shared = new MemoryKeys();
    const other = { id: 12, name: 'Other' };
    const [a, b] = [adapterFor({ keys: shared }).adapter, adapterFor({ keys: new MemoryKeys() }).adapter];
    await Promise.all([a.ensureOwnFields(other), b.ensureOwnFields(other)]);
    const live = (await state()).fields.filter((field) => field.name.endsWith('(Prospect Enrichment #12)'));
    expect(live).toHaveLength(CRM_FIELDS.length);
    expect(Object.values(shared.keys.get(12)!).sort()).toEqual(live.map((field) => field.key).sort());
  });

  it('come back as the admin\u2019s steps when the user may not make fields', async () => {
    await fetch(`${pipedrive.url}/__admin/user`, { method: 'POST', body: JSON.stringify({ isAdmin: false }) });
    try {
      const outcome = await adapterFor().adapter.ensureOwnFields({ id: 13, name: 'Locked' });
      expect(outcome.ready).toBe(false);
      expect(!outcome.ready && outcome.steps.join('\n')).toContain('Status (Prospect Enrichment #13)');
    } finally {
      await fetch(`${pipedrive.url}/__admin/user`, { method: 'POST', body: JSON.stringify({ isAdmin: true }) });
    }
  });

  it('field metadata offers number fields as a score and text or number fields to map onto, never ours', async () => {
    const { scoreFields, mappableFields } = await adapterFor().adapter.fieldMetadata();
    expect(scoreFields.map((field) => field.label)).toEqual(['Deal potential', 'Lead score']);
    expect(scoreFields.every((field) => /^[0-9a-f]{40}$/.test(field.name))).toBe(true);
    expect(mappableFields.map((field) => [field.label, field.type])).toEqual([['Background', 'string'], ['Employees', 'string'], ['Lead score', 'number']]);
  });
});

describe('a run', () => {
  let run: ReturnType<typeof adapterFor>;
  let adapter: CrmAdapter;
  beforeAll(async () => {
    run = adapterFor();
    adapter = run.adapter;
    await adapter.ensureOwnFields(product);
  });
  const query = async (reEnrichBefore: Date | null = null) => ({ productId: product.id, scoreField: await scoreKey(), minScore: 70, reEnrichBefore, mapped: [] as string[] });

  it('before a product\u2019s fields exist (a preview before its first run), takes the score alone', async () => {
    const page = await adapter.findCandidates({ productId: product.id + 1000, scoreField: await scoreKey(), minScore: 90, reEnrichBefore: null, mapped: [] }, null);
    expect(page.contacts.length).toBeGreaterThan(0);
    expect(page.contacts.every((contact) => contact.score! >= 90 && Object.keys(contact.own).length === 0)).toBe(true);
  });

  it('finds persons at or above the score, highest first, across pages of the filter; a completed one no more, and again when due', async () => {
    // 120 more persons at 80 make the filter's answer longer than one page of 100.
    await fetch(`${pipedrive.url}/__admin/persons`, { method: 'POST', body: JSON.stringify({ persons: Array.from({ length: 120 }, (_, i) => ({ name: `Bulk ${i}`, email: `bulk${i}@example.org`, values: { 'Lead score': 80 } })) }) });
    const page = await adapter.findCandidates(await query(), null);
    expect(page.next).toBeNull();
    const scores = page.contacts.map((contact) => contact.score!);
    expect(scores.length).toBeGreaterThan(120);
    expect(scores.every((score) => score >= 70)).toBe(true);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(page.contacts[0]).toMatchObject({ score: 99, own: {} });
    expect(page.contacts.find((contact) => contact.name === 'Noemail Person')).toMatchObject({ email: null });
    expect(apiCalls((call) => call.method === 'GET' && call.path === '/api/v2/persons').length).toBeGreaterThanOrEqual(2);
    expect((await state()).filters.filter((filter) => filter.name === `Prospect Enrichment #${product.id}: candidates`)).toHaveLength(1);

    const top = page.contacts[0]!.id;
    const done = await adapter.updateContacts(product.id, [{ id: top, own: { status: 'completed', prospect_summary: 'Sum', enriched_at: '2020-01-02T03:04:05.000Z' }, mapped: {} }]);
    expect(done.done.get(top)).toBe(true);
    expect((await adapter.findCandidates(await query(), null)).contacts.map((contact) => contact.id)).not.toContain(top);
    const due = await adapter.findCandidates(await query(new Date('2021-01-01T00:00:00Z')), null);
    expect(due.contacts.map((contact) => contact.id)).toContain(top);
    expect(due.contacts.find((contact) => contact.id === top)!.own).toMatchObject({ status: 'completed', enriched_at: '2020-01-02' });
    // One filter still, its conditions replaced.
    expect((await state()).filters.filter((filter) => filter.name === `Prospect Enrichment #${product.id}: candidates`)).toHaveLength(1);
  });

  it('writes each person with its own outcome, one refused; values in Pipedrive\u2019s types, read back as written', async () => {
    const employees = (await state()).fields.find((field) => field.name === 'Employees')!.key;
    const score = await scoreKey();
    const outcomes = await adapter.updateContacts(product.id, [
      { id: '2', own: { status: 'completed', company_industry: 'Software', company_employees: '51-200', enriched_at: '2026-11-26T10:00:00.000Z' }, mapped: { [employees]: '51-200', [score]: '77' } },
      { id: '99999', own: { status: 'failed' }, mapped: {} },
      { id: '3', own: { status: 'failed' }, mapped: {} },
    ]);
    expect([...outcomes.done.keys()].sort()).toEqual(['2', '3']);
    expect(outcomes.refused.get('99999')).toMatch(/404/);
    const keys = await run.keys.get(product.id);
    const person = (await state()).persons.find((each) => each.id === 2)!;
    const statusField = (await state()).fields.find((field) => field.key === keys!.status)!;
    expect(person.custom_fields[keys!.status!]).toBe(statusField.options!.find((option) => option.label === 'Completed')!.id);
    expect(person.custom_fields[keys!.enriched_at!]).toBe('2026-11-26');
    expect(person.custom_fields[score]).toBe(77);
    const read = await adapter.readContacts(product.id, ['2', '3', '99999'], [employees]);
    expect([...read.keys()].sort()).toEqual(['2', '3']);
    expect(read.get('2')).toMatchObject({ own: { status: 'completed', company_industry: 'Software', enriched_at: '2026-11-26' }, mapped: { [employees]: '51-200' } });
    expect(read.get('3')!.own).toEqual({ status: 'failed' });
    expect(adapter.maxBatch).toBe(1);
  });

  it('adds notes and finds one an earlier try made since a moment, by its body', async () => {
    const since = new Date(Date.now() - 1000);
    const made = await adapter.createNotes([{ key: '4', contactId: '4', html: '<h3>Research</h3><p>One</p>', at: new Date() }, { key: '99999', contactId: '99999', html: '<p>x</p>', at: new Date() }]);
    expect(made.done.get('4')).toEqual(expect.any(String));
    expect(made.refused.get('99999')).toMatch(/400/);
    const found = await adapter.findNotes([{ contactId: '4', html: '<h3>Research</h3><p>One</p>' }, { contactId: '5', html: '<p>none</p>' }], since);
    expect(found).toEqual(new Map([['4', made.done.get('4')]]));
    expect((await adapter.findNotes([{ contactId: '4', html: '<h3>Research</h3><p>One</p>' }], new Date(Date.now() + 5_000))).size).toBe(0);
  });

  it('finds a note by its text when Pipedrive kept it with other markup (it cleans HTML it saves), not one with other words', async () => {
    const since = new Date(Date.now() - 1000);
    // Saved as a user or Pipedrive's cleaning would keep it: the same words, other tags and spacing.
    const made = await adapter.createNotes([{ key: '8', contactId: '8', html: '<div><b>Research</b></div>\n<div>Tom &amp; Jerry&#39;s   team</div>', at: new Date() }]);
    const found = await adapter.findNotes([{ contactId: '8', html: "<h3>Research</h3><p>Tom &amp; Jerry's team</p>" }], since);
    expect(found).toEqual(new Map([['8', made.done.get('8')]]));
    expect((await adapter.findNotes([{ contactId: '8', html: '<h3>Research</h3><p>Tom and Jerry</p>' }], since)).size).toBe(0);
  });

  it('never sends a note again after a 5xx or a lost answer; the lost one is found afterwards', async () => {
    const posts = () => apiCalls((call) => call.method === 'POST' && call.path === '/api/v1/notes').length;
    const before = posts();
    pipedrive.setFaults({ serverErrorNext: 1, on: 'notes' });
    await expect(adapter.createNotes([{ key: '6', contactId: '6', html: '<p>five</p>', at: new Date() }])).rejects.toMatchObject({ name: 'CrmUnavailable', status: 502 });
    expect(posts()).toBe(before + 1);
    const since = new Date(Date.now() - 1000);
    pipedrive.setFaults({ answerLostNext: 1, on: 'notes' });
    await expect(adapter.createNotes([{ key: '7', contactId: '7', html: '<p>lost</p>', at: new Date() }])).rejects.toBeInstanceOf(CrmUnavailable);
    expect(posts()).toBe(before + 2);
    const lost = (await state()).notes.find((note) => note.person_id === 7 && note.content === '<p>lost</p>')!;
    expect(await adapter.findNotes([{ contactId: '7', html: '<p>lost</p>' }], since)).toEqual(new Map([['7', String(lost.id)]]));
  });

  it('gives a link to the person in Pipedrive\u2019s app, on the company\u2019s domain', async () => {
    expect(adapter.contactUrl('5')).toBe(`${pipedrive.url}/person/5`);
    expect((await fetch(adapter.contactUrl('5'))).status).toBe(200);
  });

  it('refuses a score field that is gone', async () => {
    await expect(adapter.findCandidates({ ...(await query()), scoreField: 'a'.repeat(40) }, null)).rejects.toMatchObject({ name: 'CrmRejected', status: 404 });
  });
});

describe('limits and failures', () => {
  let keys: MemoryKeys;
  beforeAll(async () => {
    keys = new MemoryKeys();
    await adapterFor({ keys }).adapter.ensureOwnFields(product);
  });

  it('takes one call of the burst window before every request', async () => {
    const { adapter, budget } = adapterFor({ keys });
    const before = pipedrive.calls().length;
    await adapter.readContacts(product.id, ['1', '2'], []);
    await adapter.updateContacts(product.id, [{ id: '1', own: { status: 'in_progress' }, mapped: {} }]);
    expect(budget.acquired).toBe(pipedrive.calls().length - before);
    expect(budget.acquired).toBe(3);
  });

  it('holds the company off on a 429 for the burst window\u2019s reset, then tries again', async () => {
    const { adapter, budget, sleeps } = adapterFor({ keys });
    pipedrive.setFaults({ rateLimitNext: 1, on: 'persons' });
    const read = await adapter.readContacts(product.id, ['1'], []);
    expect(read.has('1')).toBe(true);
    expect(budget.holdOffs).toEqual([2_000]);
    expect(sleeps).toEqual([2_000]);
    expect(apiCalls((call) => call.path === '/api/v2/persons').slice(-2).map((call) => call.status)).toEqual([429, 200]);
  });

  it('holds off until the day\u2019s reset and stops when the daily tokens fall under the reserve', async () => {
    const { adapter, budget } = adapterFor({ keys });
    pipedrive.setDailySpent(25_000);
    try {
      // The first call's answer says under 5,000 of 30,000 left, below the 30% reserve: the next call is not made.
      const calls = pipedrive.calls().length;
      const error = await adapter.readContacts(product.id, ['1'], []).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CrmUnavailable);
      expect((error as Error).message).toMatch(/^Pipedrive's daily API token budget is down to the 30% kept for the company's own use \(\d+ of 30000 tokens left\)$/);
      // Why and until when, for the preview and the run to say: the next midnight UTC, when Pipedrive's day turns.
      const now = new Date();
      expect((error as CrmUnavailable).holdOff).toEqual({
        reason: (error as Error).message, until: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)),
      });
      expect(pipedrive.calls().length).toBe(calls + 1);
      expect(budget.holdOffs).toHaveLength(1);
      expect(budget.holdOffs[0]).toBeGreaterThan(0);
      expect(budget.holdOffs[0]).toBeLessThanOrEqual(86_400_000);
    } finally {
      pipedrive.setDailySpent(0);
    }
  });

  it('refreshes an expired token exactly once after its 401', async () => {
    const { adapter, accessToken } = adapterFor({ keys });
    await adapter.readContacts(product.id, ['1'], []);
    await fetch(`${pipedrive.url}/__admin/expire-access-tokens`, { method: 'POST' });
    const before = pipedrive.calls().length;
    const [a, b] = await Promise.all([adapter.readContacts(product.id, ['1'], []), adapter.readContacts(product.id, ['2'], [])]);
    expect(a.has('1') && b.has('2')).toBe(true);
    expect(accessToken.refreshes).toBe(1);
    expect(pipedrive.calls().slice(before).filter((call) => call.kind === 'oauth')).toHaveLength(1);
  });

  it('retries a 5xx on a read and gives up as unavailable when it lasts; a refusal is CrmRejected', async () => {
    const { adapter, sleeps } = adapterFor({ keys });
    pipedrive.setFaults({ serverErrorNext: 2, on: 'persons' });
    expect((await adapter.readContacts(product.id, ['1'], [])).has('1')).toBe(true);
    expect(sleeps).toEqual([1, 2]);
    pipedrive.setFaults({ serverErrorNext: 10, serverErrorStatus: 503, on: 'persons' });
    await expect(adapter.readContacts(product.id, ['1'], [])).rejects.toMatchObject({ name: 'CrmUnavailable', status: 503 });
    pipedrive.setFaults({ serverErrorNext: 0 });
    const refused = await adapter.findCandidates({ productId: 999, scoreField: 'x', minScore: 1, reEnrichBefore: null, mapped: [] }, null).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(CrmRejected);
  });
});
