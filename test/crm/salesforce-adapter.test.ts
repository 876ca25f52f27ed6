// The Salesforce adapter and OAuth against the stand-in over HTTP: consent
// with PKCE → grant (org id, instance URL), refresh, revoke; our fields made
// once (also twice at once), or the admin's steps; field metadata;
// candidates (filter, order, paging, re-enrichment, Leads); batch writes with
// per-record outcomes; notes made once and found again, an orphan adopted;
// the budget, the allowance's reserve, REQUEST_LIMIT_EXCEEDED, a 401 with
// exactly one refresh; which error class each failure is.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BudgetWindow, CrmAdapter, CrmCallBudget, CrmGrant } from '../../integrations/crm/adapter.ts';
import { CrmAuthRevoked, CrmRejected, CrmUnavailable } from '../../integrations/crm/errors.ts';
import { createSalesforceAdapter, type SalesforceObject } from '../../integrations/salesforce/adapter.ts';
import { loadSalesforceConfig, SALESFORCE_BUDGET_WINDOWS, SALESFORCE_DEFAULT_SCORE_FIELD, type SalesforceConfig } from '../../integrations/salesforce/config.ts';
import { ownFieldName } from '../../integrations/salesforce/fields.ts';
import { createSalesforceOAuth } from '../../integrations/salesforce/oauth.ts';
import { ConfigError } from '../../lib/env.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/server.ts';

/** A budget that really counts: each kind's window enforced by waiting, every hold-off recorded (and waited, up to 20 ms). */
class CountingBudget implements CrmCallBudget {
  acquired = 0;
  holdOffs: number[] = [];
  private calls: number[] = [];
  private heldUntil = 0;
  private readonly windows: Record<string, BudgetWindow>;
  constructor(windows: Record<string, BudgetWindow>) {
    this.windows = windows;
  }
  async acquire(kind: string) {
    const window = this.windows[kind];
    if (!window) throw new Error(`no window for ${kind}`);
    for (;;) {
      const now = Date.now();
      this.calls = this.calls.filter((at) => at > now - window.windowMs);
      const wait = Math.max(this.heldUntil - now, this.calls.length >= window.max ? this.calls[0]! + window.windowMs - now : 0);
      if (wait <= 0) break;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    this.calls.push(Date.now());
    this.acquired++;
  }
  async holdOff(ms: number) {
    this.holdOffs.push(ms);
    this.heldUntil = Math.max(this.heldUntil, Date.now() + Math.min(ms, 20));
  }
}

let sf: SalesforceSandbox;
let config: SalesforceConfig;
const redirectUri = 'http://127.0.0.1:9/app/crm/callback';
const product = { id: 7, name: 'PipelineIQ' };

beforeAll(async () => {
  sf = await startSalesforceSandbox({ world: createWorld(), people: 20 });
  config = loadSalesforceConfig({
    SALESFORCE_CLIENT_ID: SANDBOX_CLIENT_ID, SALESFORCE_CLIENT_SECRET: SANDBOX_CLIENT_SECRET, SALESFORCE_LOGIN_BASE: sf.url,
    SALESFORCE_API_RESERVE_PERCENT: '20', SALESFORCE_API_HOLD_OFF_MINUTES: '30',
  })!;
});
afterAll(async () => sf?.close());
beforeEach(async () => void (await fetch(`${sf.url}/__admin/reset`, { method: 'POST', body: '{"people":20}' })));

async function connect(): Promise<CrmGrant> {
  const oauth = createSalesforceOAuth(config);
  const verifier = randomBytes(32).toString('base64url');
  const url = oauth.authorizeUrl({ state: 'st', redirectUri, codeChallenge: createHash('sha256').update(verifier).digest('base64url') });
  const approved = await fetch(`${sf.url}/__admin/approve?authorize_url=${encodeURIComponent(url)}`, { redirect: 'manual' });
  return oauth.exchangeCode({ code: new URL(approved.headers.get('location')!).searchParams.get('code')!, redirectUri, codeVerifier: verifier });
}

/** The adapter with a counting budget and a token source that refreshes on a refusal, counting refreshes. */
async function adapterFor(object: SalesforceObject = 'Contact', grant?: CrmGrant) {
  const connected = grant ?? (await connect());
  const oauth = createSalesforceOAuth(config);
  const budget = new CountingBudget(SALESFORCE_BUDGET_WINDOWS);
  const tokens = { current: connected.accessToken, refreshes: 0 };
  const adapter = createSalesforceAdapter({
    config, object, budget,
    connection: { accountId: 1, provider: 'salesforce', portalId: connected.portalId, apiBase: connected.apiBase },
    accessToken: async (options) => {
      if (options?.refused === tokens.current) {
        tokens.refreshes++;
        tokens.current = (await oauth.refresh(connected.refreshToken, connected.apiBase)).accessToken;
      }
      return tokens.current;
    },
    fieldKeys: { get: async () => null, save: async () => {} },
    retry: { serverErrorBaseMs: 5, concurrentMs: 10 },
  });
  return { adapter, budget, tokens, grant: connected };
}

const callLog = async () => ((await (await fetch(`${sf.url}/__admin/calls`)).json()) as { calls: Array<{ method: string; path: string; status: number }> }).calls;
const callsTo = async (fragment: string, method = 'POST') => (await callLog()).filter((call) => call.method === method && call.path.includes(fragment));

async function ready(adapter: CrmAdapter) {
  expect(await adapter.ensureOwnFields(product)).toEqual({ ready: true });
}

describe('configuration and OAuth', () => {
  it('is off without a client, refuses half of one; no default score field', () => {
    expect(loadSalesforceConfig({})).toBeNull();
    expect(() => loadSalesforceConfig({ SALESFORCE_CLIENT_ID: 'x' })).toThrow(ConfigError);
    expect(loadSalesforceConfig({ SALESFORCE_CLIENT_ID: 'x', SALESFORCE_CLIENT_SECRET: 'y' })!.loginBase).toBe('https://login.salesforce.com');
    expect(SALESFORCE_DEFAULT_SCORE_FIELD).toBeNull();
  });

  it('connects: consent with PKCE → code → a grant naming the org, the user and the instance; refresh keeps the refresh token; revoke ends it', async () => {
    const oauth = createSalesforceOAuth(config);
    const url = new URL(oauth.authorizeUrl({ state: 'st', redirectUri, codeChallenge: 'abc' }));
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ response_type: 'code', scope: 'api refresh_token', code_challenge: 'abc', code_challenge_method: 'S256', state: 'st' });
    const grant = await connect();
    expect(grant).toMatchObject({ portalId: sf.org().orgId, connectedUser: sf.org().username, apiBase: sf.url, scopes: ['api', 'refresh_token'] });
    expect(grant.expiresAt.getTime()).toBeGreaterThan(Date.now() + 100 * 60_000);
    const refreshed = await oauth.refresh(grant.refreshToken, grant.apiBase);
    expect(refreshed.accessToken).not.toBe(grant.accessToken);
    expect(refreshed.refreshToken).toBe(grant.refreshToken);
    await oauth.revoke(grant.refreshToken, grant.apiBase);
    await oauth.revoke(grant.refreshToken, grant.apiBase);
    await expect(oauth.refresh(grant.refreshToken, grant.apiBase)).rejects.toBeInstanceOf(CrmAuthRevoked);
    await expect(oauth.exchangeCode({ code: 'nope', redirectUri, codeVerifier: 'v' })).rejects.toBeInstanceOf(CrmRejected);
  });
});

describe('our fields', () => {
  it('creates the nine fields and grants them once; a second call and two at once change nothing', async () => {
    const { adapter } = await adapterFor();
    const other = (await adapterFor()).adapter;
    const [first, second] = await Promise.all([adapter.ensureOwnFields(product), other.ensureOwnFields(product)]);
    expect(first).toEqual({ ready: true });
    expect(second).toEqual({ ready: true });
    const contact = sf.org().objects.get('Contact')!;
    expect([...contact.fields.keys()].filter((name) => name.startsWith('Pe_7_')).sort()).toHaveLength(9);
    expect(contact.fields.get(ownFieldName(7, 'status'))).toMatchObject({ type: 'picklist', restrictedPicklist: true });
    expect(contact.fields.get(ownFieldName(7, 'prospect_summary'))).toMatchObject({ type: 'textarea', filterable: false });
    expect(sf.org().objects.get('PermissionSet')!.records.size).toBe(1);
    expect(sf.org().objects.get('FieldPermissions')!.records.size).toBe(9);
    expect(sf.org().objects.get('PermissionSetAssignment')!.records.size).toBe(1);
    const creates = (await callsTo('/tooling/sobjects/CustomField')).length;
    expect(await adapter.ensureOwnFields(product)).toEqual({ ready: true });
    expect((await callsTo('/tooling/sobjects/CustomField')).length).toBe(creates);
  });

  it('without the rights to create fields, answers the admin’s steps and makes nothing', async () => {
    sf.setFaults({ lacksFieldRights: true });
    const { adapter } = await adapterFor();
    const state = await adapter.ensureOwnFields(product);
    expect(state.ready).toBe(false);
    const steps = state.ready ? [] : state.steps;
    expect(steps.join('\n')).toContain('Setup → Object Manager → Contact → Fields & Relationships');
    for (const field of ['Status', 'Prospect_Summary', 'Enriched_At']) expect(steps.join('\n')).toContain(`Pe_7_${field}__c`);
    expect(steps.join('\n')).toContain('in_progress, completed, failed');
    expect(steps.join('\n')).toContain('Permission Sets');
    expect([...sf.org().objects.get('Contact')!.fields.keys()].some((name) => name.startsWith('Pe_7_'))).toBe(false);
  });

  it('offers numbers that filter and sort as scores, and editable texts and numbers as write-rule targets', async () => {
    const { adapter } = await adapterFor();
    await ready(adapter);
    const { scoreFields, mappableFields } = await adapter.fieldMetadata();
    expect(scoreFields.map((field) => field.name).sort()).toEqual(['Employees__c', 'Engagement__c', 'Lead_Score__c', 'Score_Formula__c']);
    expect(mappableFields.map((field) => field.name).sort()).toEqual(['Department', 'Description', 'Employees__c', 'FirstName', 'Industry_Text__c', 'LastName', 'Lead_Score__c', 'Title']);
    expect(mappableFields.find((field) => field.name === 'Employees__c')!.type).toBe('number');
  });
});

describe('candidates', () => {
  it('filters by score and status, highest first, pages by nextRecordsUrl, and takes completed ones again when due', async () => {
    const { adapter } = await adapterFor();
    await ready(adapter);
    await fetch(`${sf.url}/__admin/records`, { method: 'POST', body: JSON.stringify({ object: 'Contact', records: Array.from({ length: 210 }, (_, index) => ({ LastName: `Bulk ${index}`, Email: `bulk${index}@example.com`, Lead_Score__c: 75 })) }) });
    const query = { productId: 7, scoreField: 'Lead_Score__c', minScore: 70, reEnrichBefore: null, mapped: ['Title'] };
    const first = await adapter.findCandidates(query, null);
    expect(first.contacts).toHaveLength(200);
    expect(first.next).not.toBeNull();
    const scores = first.contacts.map((contact) => contact.score!);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBe(99);
    const second = await adapter.findCandidates(query, first.next);
    expect(second.next).toBeNull();
    expect([...first.contacts, ...second.contacts].every((contact) => contact.score! >= 70)).toBe(true);
    expect(first.contacts[0]!.mapped).toHaveProperty('Title');

    const [done, old] = first.contacts;
    const updated = await adapter.updateContacts(7, [
      { id: done!.id, own: { status: 'completed', enriched_at: '2025-06-01T10:00:00.000Z' }, mapped: {} },
      { id: old!.id, own: { status: 'completed', enriched_at: '2024-01-01T10:00:00.000Z' }, mapped: {} },
    ]);
    expect(updated.refused.size).toBe(0);
    const ids = async (reEnrichBefore: Date | null) => {
      const page = await adapter.findCandidates({ ...query, reEnrichBefore }, null);
      return page.contacts.map((contact) => contact.id);
    };
    expect(await ids(null)).not.toContain(done!.id);
    expect(await ids(null)).not.toContain(old!.id);
    const due = await ids(new Date('2025-01-01T00:00:00Z'));
    expect(due).toContain(old!.id);
    expect(due).not.toContain(done!.id);
  });

  it('before the product\u2019s fields exist (a preview before its first run), takes the score alone', async () => {
    const { adapter } = await adapterFor();
    const page = await adapter.findCandidates({ productId: 8, scoreField: 'Lead_Score__c', minScore: 90, reEnrichBefore: new Date(), mapped: [] }, null);
    expect(page.contacts.length).toBeGreaterThan(0);
    expect(page.contacts.every((contact) => contact.score! >= 90 && Object.keys(contact.own).length === 0)).toBe(true);
  });

  it('reads Leads when the product says so', async () => {
    const { adapter } = await adapterFor('Lead');
    await ready(adapter);
    const page = await adapter.findCandidates({ productId: 7, scoreField: 'Lead_Score__c', minScore: 90, reEnrichBefore: null, mapped: [] }, null);
    expect(page.contacts.length).toBeGreaterThan(0);
    expect(page.contacts.every((contact) => contact.id.startsWith('00Q'))).toBe(true);
    expect(adapter.contactUrl(page.contacts[0]!.id)).toBe(`${sf.url}/lightning/r/Lead/${page.contacts[0]!.id}/view`);
    await expect(adapter.findCandidates({ productId: 7, scoreField: 'Lead_Score__c; DROP', minScore: 1, reEnrichBefore: null, mapped: [] }, null)).rejects.toBeInstanceOf(CrmRejected);
  });
});

describe('batch writes', () => {
  it('writes each contact or says why not, one refused alone; values read back as written', async () => {
    const { adapter } = await adapterFor();
    await ready(adapter);
    const [a, b] = [...sf.org().objects.get('Contact')!.records.keys()];
    const outcomes = await adapter.updateContacts(7, [
      { id: a!, own: { status: 'completed', prospect_summary: 'Line one\nLine two', company_employees: '51-200', enriched_at: '2025-03-04T05:06:07.000Z' }, mapped: { Employees__c: '120', Title: 'VP Sales' } },
      { id: b!, own: { status: 'failed' }, mapped: {} },
      { id: '003000000000000AAA', own: { status: 'failed' }, mapped: {} },
    ]);
    expect([...outcomes.done.keys()].sort()).toEqual([a, b].sort());
    expect(outcomes.refused.get('003000000000000AAA')).toMatch(/^ENTITY_IS_DELETED/);
    const read = await adapter.readContacts(7, [a!, b!, '003000000000000AAA'], ['Employees__c', 'Title']);
    expect(read.size).toBe(2);
    expect(read.get(a!)!.own).toEqual({ status: 'completed', prospect_summary: 'Line one\nLine two', company_employees: '51-200', enriched_at: '2025-03-04T05:06:07.000Z' });
    expect(read.get(a!)!.mapped).toEqual({ Employees__c: '120', Title: 'VP Sales' });
    expect(read.get(b!)!.own).toEqual({ status: 'failed' });
  });

  it('makes notes once, linked to the record, and finds them again by body; an unlinked one from a lost answer is adopted, not made twice', async () => {
    const { adapter } = await adapterFor();
    const [a, b, c] = [...sf.org().objects.get('Contact')!.records.keys()];
    const since = new Date(Date.now() - 1000);
    const html = (who: string) => `<h3>Prospect research for PipelineIQ (Acme &amp; Co)</h3>\n<p><strong>Summary</strong><br>${who}</p>`;
    const made = await adapter.createNotes([{ key: a!, contactId: a!, html: html('A'), at: new Date() }, { key: b!, contactId: b!, html: '<p>a & b</p>', at: new Date() }]);
    expect(made.done.get(a!)).toMatch(/^069/);
    expect(made.refused.get(b!)).toMatch(/^FIELD_INTEGRITY_EXCEPTION/);
    expect(sf.org().objects.get('ContentNote')!.records.get(made.done.get(a!)!)!.Title).toBe('Prospect research for PipelineIQ (Acme & Co)');
    const found = await adapter.findNotes([{ contactId: a!, html: html('A') }, { contactId: b!, html: html('B') }], since);
    expect(Object.fromEntries(found)).toEqual({ [a!]: made.done.get(a!) });
    expect((await adapter.findNotes([{ contactId: a!, html: html('A') }], new Date(Date.now() + 5_000))).size).toBe(0);

    // The create is carried out but its answer is lost: not sent again, the error goes up, and the retry's look adopts the note.
    sf.setFaults({ answerLostNext: 1, on: 'write' });
    await expect(adapter.createNotes([{ key: c!, contactId: c!, html: html('C'), at: new Date() }])).rejects.toBeInstanceOf(CrmUnavailable);
    expect((await callsTo('/composite/sobjects')).filter((call) => call.status === 0)).toHaveLength(1);
    const adopted = await adapter.findNotes([{ contactId: c!, html: html('C') }], since);
    expect(adopted.get(c!)).toMatch(/^069/);
    const links = [...sf.org().objects.get('ContentDocumentLink')!.records.values()].filter((link) => link.LinkedEntityId === c);
    expect(links.map((link) => link.ContentDocumentId)).toEqual([adopted.get(c!)]);
    expect(sf.org().objects.get('ContentNote')!.records.size).toBe(2);
  });

  it('does not send a note create again after a 5xx', async () => {
    const { adapter } = await adapterFor();
    const [a] = [...sf.org().objects.get('Contact')!.records.keys()];
    sf.setFaults({ serverErrorNext: 1, serverErrorStatus: 503, on: 'write' });
    const before = (await callsTo('/composite/sobjects')).length;
    await expect(adapter.createNotes([{ key: a!, contactId: a!, html: '<p>x</p>', at: new Date() }])).rejects.toMatchObject({ name: 'CrmUnavailable', status: 503 });
    expect((await callsTo('/composite/sobjects')).length - before).toBe(1);
  });
});

describe('limits, tokens and errors', () => {
  it('takes every call from the budget; a concurrent-requests refusal or a 429 holds off and is retried', async () => {
    const { adapter, budget } = await adapterFor();
    sf.setFaults({ requestLimitNext: 1, requestLimitKind: 'concurrent', on: 'describe' });
    const before = (await callLog()).filter((call) => !call.path.startsWith('/__admin') && !call.path.startsWith('/services/oauth2') && !call.path.startsWith('/id/')).length;
    await adapter.fieldMetadata();
    expect(budget.holdOffs).toEqual([10]);
    sf.setFaults({ tooManyRequestsNext: 1, on: 'describe' });
    await adapter.fieldMetadata();
    expect(budget.holdOffs).toEqual([10, 1000]);
    const after = (await callLog()).filter((call) => !call.path.startsWith('/__admin') && !call.path.startsWith('/services/oauth2') && !call.path.startsWith('/id/')).length;
    expect(budget.acquired).toBe(after - before);
    expect(budget.acquired).toBe(4);
  });

  it('holds every process off once the day’s usage passes the allowance less the reserve; a spent allowance is CrmUnavailable with a long wait', async () => {
    const { adapter, budget } = await adapterFor();
    sf.setFaults({ apiLimit: 100, apiUsed: 70 });
    await adapter.fieldMetadata();
    expect(budget.holdOffs).toEqual([]);
    sf.setFaults({ apiUsed: 85 });
    await adapter.fieldMetadata();
    expect(budget.holdOffs).toEqual([30 * 60_000]);
    sf.setFaults({ apiUsed: 100 });
    const error = await adapter.fieldMetadata().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CrmUnavailable);
    expect(error).toMatchObject({ status: 403, retryAfterMs: 30 * 60_000 });
  });

  it('refreshes exactly once on an expired session; a revoked grant is CrmAuthRevoked; a bad request is CrmRejected', async () => {
    const { adapter, tokens, grant } = await adapterFor();
    await fetch(`${sf.url}/__admin/expire-access-tokens`, { method: 'POST' });
    await adapter.fieldMetadata();
    expect(tokens.refreshes).toBe(1);
    expect((await callLog()).filter((call) => call.status === 401)).toHaveLength(1);
    await createSalesforceOAuth(config).revoke(grant.refreshToken, grant.apiBase);
    await expect(adapter.fieldMetadata()).rejects.toBeInstanceOf(CrmAuthRevoked);

    const fresh = (await adapterFor()).adapter;
    await expect(fresh.readContacts(7, [[...sf.org().objects.get('Contact')!.records.keys()][0]!], ['No_Such_Field__c'])).rejects.toMatchObject({ name: 'SalesforceRejected', status: 400, errorCode: 'INVALID_FIELD' });
    expect(fresh.maxBatch).toBe(200);
  });
});
