// The Salesforce stand-in speaks the documented protocol (raw fetch, the
// documented requests): the web server flow with PKCE, SOQL queries with
// nextRecordsUrl paging and Salesforce's refusals, sObject Collections with a
// SaveResult per record, notes, the Tooling API, the Limit Info header and
// REQUEST_LIMIT_EXCEEDED, and INVALID_SESSION_ID.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/server.ts';

let sf: SalesforceSandbox;
const redirectUri = 'http://127.0.0.1:9/callback';
const verifier = 'a-verifier-of-enough-length-0123456789-abcdefghijklmnop';
const challenge = createHash('sha256').update(verifier).digest('base64url');

beforeAll(async () => void (sf = await startSalesforceSandbox({ world: createWorld(), people: 10 })));
afterAll(async () => sf?.close());
beforeEach(async () => void (await fetch(`${sf.url}/__admin/reset`, { method: 'POST', body: '{"people":10}' })));

const authorizeUrl = (extra: Record<string, string> = {}) =>
  `${sf.url}/services/oauth2/authorize?${new URLSearchParams({ response_type: 'code', client_id: SANDBOX_CLIENT_ID, redirect_uri: redirectUri, state: 's1', scope: 'api refresh_token', code_challenge: challenge, code_challenge_method: 'S256', ...extra })}`;

async function codeFor(url = authorizeUrl(), decision = 'allow') {
  const answer = await fetch(`${sf.url}/__admin/approve?decision=${decision}&authorize_url=${encodeURIComponent(url)}`, { redirect: 'manual' });
  return new URL(answer.headers.get('location')!).searchParams;
}

const tokenCall = (form: Record<string, string>) =>
  fetch(`${sf.url}/services/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: SANDBOX_CLIENT_ID, client_secret: SANDBOX_CLIENT_SECRET, ...form }) });

async function session() {
  const code = (await codeFor()).get('code')!;
  return (await (await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })).json()) as Record<string, string>;
}

const api = async (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${sf.url}/services/data/v62.0${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(init.headers as Record<string, string>) } });

describe('OAuth web server flow with PKCE', () => {
  it('shows Allow and Deny, gives a code with the state, and a token reply with the identity URL naming org and user', async () => {
    const page = await (await fetch(authorizeUrl())).text();
    expect(page).toContain('Allow Access?');
    expect(page).toMatch(/<button[^>]*value="allow"[^>]*>Allow<\/button>/);
    expect(page).toMatch(/<button[^>]*value="deny"[^>]*>Deny<\/button>/);
    const denied = await codeFor(authorizeUrl(), 'deny');
    expect(denied.get('error')).toBe('access_denied');
    expect(denied.get('state')).toBe('s1');

    const reply = await session();
    expect(Object.keys(reply).sort()).toEqual(['access_token', 'id', 'instance_url', 'issued_at', 'refresh_token', 'scope', 'signature', 'token_type']);
    expect(reply.id).toBe(`${sf.url}/id/${sf.org().orgId}/${sf.org().userId}`);
    expect(reply.token_type).toBe('Bearer');
    const identity = await (await fetch(reply.id!, { headers: { authorization: `Bearer ${reply.access_token}` } })).json();
    expect(identity).toMatchObject({ organization_id: sf.org().orgId, user_id: sf.org().userId, username: sf.org().username });
    const info = await (await fetch(`${sf.url}/services/oauth2/userinfo`, { headers: { authorization: `Bearer ${reply.access_token}` } })).json();
    expect(info).toMatchObject({ user_id: sf.org().userId, preferred_username: sf.org().username });
  });

  it('checks the verifier: a wrong one is invalid_request, a missing one invalid_grant; a code is used once', async () => {
    const wrong = await tokenCall({ grant_type: 'authorization_code', code: (await codeFor()).get('code')!, redirect_uri: redirectUri, code_verifier: `${verifier}x` });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ error: 'invalid_request', error_description: 'invalid code verifier' });
    const missing = await tokenCall({ grant_type: 'authorization_code', code: (await codeFor()).get('code')!, redirect_uri: redirectUri });
    expect((await missing.json()).error).toBe('invalid_grant');
    const code = (await codeFor()).get('code')!;
    expect((await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })).status).toBe(200);
    expect((await (await tokenCall({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier })).json()).error).toBe('invalid_grant');
    expect((await (await tokenCall({ grant_type: 'authorization_code', code, client_secret: 'nope' })).json()).error).toBe('invalid_client');
  });

  it('refreshes without a new refresh token; a revoked refresh token ends its access tokens', async () => {
    const first = await session();
    const refreshed = (await (await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token! })).json()) as Record<string, string>;
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.refresh_token).toBeUndefined();
    const revoked = await fetch(`${sf.url}/services/oauth2/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${encodeURIComponent(first.refresh_token!)}` });
    expect(revoked.status).toBe(200);
    const after = await api(refreshed.access_token!, '/limits');
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual([{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    expect((await (await tokenCall({ grant_type: 'refresh_token', refresh_token: first.refresh_token! })).json()).error).toBe('invalid_grant');
    const again = await fetch(`${sf.url}/services/oauth2/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'token=unknown' });
    expect(again.status).toBe(400);
  });
});

describe('the REST API', () => {
  it('answers a SOQL query in pages of the asked batch size with nextRecordsUrl, and refuses what SOQL refuses', async () => {
    const { access_token: token } = await session();
    await fetch(`${sf.url}/__admin/records`, { method: 'POST', body: JSON.stringify({ object: 'Contact', records: Array.from({ length: 230 }, (_, index) => ({ LastName: `Bulk ${index}`, Lead_Score__c: 80 })) }) });
    const q = encodeURIComponent('SELECT Id, Name, Lead_Score__c FROM Contact WHERE Lead_Score__c >= 80 ORDER BY Lead_Score__c DESC, Id ASC');
    const first = await (await api(token!, `/query?q=${q}`, { headers: { 'Sforce-Query-Options': 'batchSize=200' } })).json();
    expect(first.done).toBe(false);
    expect(first.records).toHaveLength(200);
    expect(first.records[0].attributes.type).toBe('Contact');
    expect(first.records[0].Lead_Score__c).toBe(99);
    const second = await (await fetch(`${sf.url}${first.nextRecordsUrl}`, { headers: { authorization: `Bearer ${token}` } })).json();
    expect(second.done).toBe(true);
    expect(first.totalSize).toBe(200 + second.records.length);

    const refused = async (soql: string) => {
      const answer = await api(token!, `/query?q=${encodeURIComponent(soql)}`);
      expect(answer.status).toBe(400);
      return ((await answer.json()) as Array<{ errorCode: string; message: string }>)[0]!;
    };
    expect((await refused("SELECT Id FROM Contact WHERE Description = 'x'"))).toEqual({ errorCode: 'INVALID_FIELD', message: "field 'Description' can not be filtered in query call" });
    expect((await refused('SELECT COUNT() FROM Contact')).errorCode).toBe('MALFORMED_QUERY');
    expect((await refused('SELECT Id FROM Contact WHERE Nope__c = 1')).errorCode).toBe('INVALID_FIELD');
    expect((await refused("SELECT Id FROM Contact WHERE Lead_Score__c = '5'")).errorCode).toBe('INVALID_FIELD');
    expect((await refused('SELECT Id FROM ContentDocumentLink')).message).toContain('Implementation restriction');
  });

  it('updates with sObject Collections: one SaveResult per record in order, a refused one alone; at most 200 records', async () => {
    const { access_token: token } = await session();
    const [first, second] = [...sf.org().objects.get('Contact')!.records.keys()];
    const answer = await api(token!, '/composite/sobjects', {
      method: 'PATCH',
      body: JSON.stringify({ allOrNone: false, records: [
        { attributes: { type: 'Contact' }, id: first, Title: 'CTO' },
        { attributes: { type: 'Contact' }, id: second, Title: 'x'.repeat(200) },
        { attributes: { type: 'Contact' }, id: '003000000000000AAA', Title: 'CEO' },
      ] }),
    });
    expect(answer.status).toBe(200);
    const results = await answer.json();
    expect(results[0]).toEqual({ id: first, success: true, errors: [] });
    expect(results[1].errors[0].statusCode).toBe('STRING_TOO_LONG');
    expect(results[2].errors[0].statusCode).toBe('ENTITY_IS_DELETED');
    expect(sf.org().objects.get('Contact')!.records.get(first!)!.Title).toBe('CTO');
    const tooMany = await api(token!, '/composite/sobjects', { method: 'PATCH', body: JSON.stringify({ records: Array.from({ length: 201 }, () => ({ attributes: { type: 'Contact' }, id: first })) }) });
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json())[0].errorCode).toBe('EXCEEDED_ID_LIMIT');
  });

  it('a converted Lead stays queryable and refuses every update (CANNOT_UPDATE_CONVERTED_LEAD), as Salesforce documents it', async () => {
    const { access_token: token } = await session();
    const leads = [...sf.org().objects.get('Lead')!.records.values()];
    const converted = leads.find((lead) => lead.IsConverted === true)!;
    const open = leads.find((lead) => lead.IsConverted === false)!;
    const query = async (soql: string) => (await (await api(token!, `/query?q=${encodeURIComponent(soql)}`)).json()) as { records: Array<{ Id: string }> };
    expect((await query('SELECT Id FROM Lead WHERE IsConverted = true')).records.map((record) => record.Id)).toContain(converted.Id);
    expect((await query('SELECT Id FROM Lead WHERE IsConverted = false')).records.map((record) => record.Id)).not.toContain(converted.Id);
    const answer = await api(token!, '/composite/sobjects', {
      method: 'PATCH',
      body: JSON.stringify({ allOrNone: false, records: [{ attributes: { type: 'Lead' }, id: converted.Id, Title: 'CTO' }, { attributes: { type: 'Lead' }, id: open.Id, Title: 'CTO' }] }),
    });
    expect(await answer.json()).toEqual([
      { id: converted.Id, success: false, errors: [{ statusCode: 'CANNOT_UPDATE_CONVERTED_LEAD', message: 'cannot reference converted lead', fields: [] }] },
      { id: open.Id, success: true, errors: [] },
    ]);
    expect(converted.Title).not.toBe('CTO');
    // IsConverted is set by a conversion, never by an update.
    const [set] = await (await api(token!, '/composite/sobjects', { method: 'PATCH', body: JSON.stringify({ records: [{ attributes: { type: 'Lead' }, id: open.Id, IsConverted: true }] }) })).json();
    expect(set.errors[0].statusCode).toBe('INVALID_FIELD_FOR_INSERT_UPDATE');
  });

  it('creates a ContentNote (new lines stripped, unescaped text refused) and links it; its body is read on its own', async () => {
    const { access_token: token } = await session();
    const contact = [...sf.org().objects.get('Contact')!.records.keys()][0]!;
    const content = (html: string) => Buffer.from(html).toString('base64');
    const notes = await (await api(token!, '/composite/sobjects', {
      method: 'POST',
      body: JSON.stringify({ allOrNone: false, records: [
        { attributes: { type: 'ContentNote' }, Title: 'Research', Content: content('<p>A &amp; B</p>\n<p>C</p>') },
        { attributes: { type: 'ContentNote' }, Title: 'Bad', Content: content('<p>A & B</p>') },
      ] }),
    })).json();
    expect(notes[0].id).toMatch(/^069/);
    expect(notes[1].errors[0].statusCode).toBe('FIELD_INTEGRITY_EXCEPTION');
    const link = { attributes: { type: 'ContentDocumentLink' }, ContentDocumentId: notes[0].id, LinkedEntityId: contact, ShareType: 'V' };
    const links = await (await api(token!, '/composite/sobjects', { method: 'POST', body: JSON.stringify({ records: [link, link] }) })).json();
    expect(links[0].success).toBe(true);
    expect(links[1].errors[0].statusCode).toBe('DUPLICATE_VALUE');
    const body = await (await api(token!, `/sobjects/ContentNote/${notes[0].id}/Content`)).text();
    expect(body).toBe('<p>A &amp; B</p><p>C</p>');
  });

  it('creates a custom field through the Tooling API, seen only once a permission set grants it; refused without the rights', async () => {
    const { access_token: token } = await session();
    const field = { FullName: 'Contact.Pe_1_Status__c', Metadata: { label: 'PE 1 Status', type: 'Picklist', valueSet: { restricted: true, valueSetDefinition: { value: [{ fullName: 'completed', label: 'completed' }] } } } };
    const created = await api(token!, '/tooling/sobjects/CustomField', { method: 'POST', body: JSON.stringify(field) });
    expect(created.status).toBe(201);
    const again = await api(token!, '/tooling/sobjects/CustomField', { method: 'POST', body: JSON.stringify(field) });
    expect((await again.json())[0].errorCode).toBe('DUPLICATE_DEVELOPER_NAME');
    const names = async () => ((await (await api(token!, '/sobjects/Contact/describe')).json()).fields as Array<{ name: string }>).map((each) => each.name);
    expect(await names()).not.toContain('Pe_1_Status__c');
    const [set] = await (await api(token!, '/composite/sobjects', { method: 'POST', body: JSON.stringify({ records: [{ attributes: { type: 'PermissionSet' }, Name: 'Pe_1', Label: 'Pe 1' }] }) })).json();
    await api(token!, '/composite/sobjects', { method: 'POST', body: JSON.stringify({ records: [
      { attributes: { type: 'FieldPermissions' }, ParentId: set.id, SobjectType: 'Contact', Field: 'Contact.Pe_1_Status__c', PermissionsRead: true, PermissionsEdit: true },
      { attributes: { type: 'PermissionSetAssignment' }, PermissionSetId: set.id, AssigneeId: sf.org().userId },
    ] }) });
    expect(await names()).toContain('Pe_1_Status__c');

    sf.setFaults({ lacksFieldRights: true });
    const refused = await api(token!, '/tooling/sobjects/CustomField', { method: 'POST', body: JSON.stringify({ ...field, FullName: 'Contact.Pe_2_Status__c' }) });
    expect(refused.status).toBe(403);
    expect((await refused.json())[0].errorCode).toBe('INSUFFICIENT_ACCESS_OR_READONLY');
  });

  it('says the day’s usage on every answer and refuses with REQUEST_LIMIT_EXCEEDED once it is spent', async () => {
    const { access_token: token } = await session();
    sf.setFaults({ apiLimit: 3, apiUsed: 1 });
    const first = await api(token!, '/limits');
    expect(first.headers.get('sforce-limit-info')).toBe('api-usage=2/3');
    expect((await first.json()).DailyApiRequests).toEqual({ Max: 3, Remaining: 1 });
    expect((await api(token!, '/limits')).headers.get('sforce-limit-info')).toBe('api-usage=3/3');
    const spent = await api(token!, '/limits');
    expect(spent.status).toBe(403);
    expect((await spent.json())[0]).toMatchObject({ errorCode: 'REQUEST_LIMIT_EXCEEDED' });
  });
});
