// The CRM page's API through the real API and dashboard auth, against the
// HubSpot stand-in: the plan gate, connecting through HubSpot's consent
// (state bound to the session, single-use), settings with field errors, the
// Schedule following them, the preview, the portal's score properties read
// once, write rules and re-enrichment, disconnect and account deletion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { crmScheduleId } from '../../services/crm/schedules.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { addPortalNumberProperty } from '../helpers/hubspot-portal.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let crm: CrmFixture;
let alice: DashboardClient;
let aliceEmail: string;
let bob: DashboardClient;
let productId: number;
const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };
const em = () => stack.orm.em.fork();
const validSettings = () => ({
  cadence: 'mon_thu', hourUtc: 9, scoreProperty: 'hubspotscore', minScore: 80, skipFreeMail: true, skipRoleBased: true, researchLimit: 3,
  chatWebhookUrl: `${crm.chat.url}/services/T1/B1/api`, digestEnabled: true, digestEmail: null, active: true,
});

async function accountOf(email: string): Promise<number> {
  const [row] = await em().execute('select id from account where owner_email = ?', [email]);
  return row.id;
}

/** Follows HubSpot's consent as the user would: the page, the Connect button, and the redirect back to the app. */
async function consent(client: DashboardClient, authorizeUrl: string, decision = 'approve'): Promise<URL> {
  const page = await fetch(authorizeUrl);
  expect(await page.text()).toContain('Connect app');
  const query = new URL(authorizeUrl).searchParams;
  const form = new URLSearchParams({ decision, portal_id: '4000001', client_id: query.get('client_id')!, redirect_uri: query.get('redirect_uri')!, state: query.get('state')!, scope: query.get('scope')! });
  const approved = await fetch(`${crm.hubspot.url}/oauth/authorize/decision`, { method: 'POST', body: form, redirect: 'manual' });
  const callback = new URL(approved.headers.get('location')!);
  const back = await client.get(callback.pathname + callback.search);
  expect(back.status).toBe(302);
  return new URL(back.headers.get('location')!);
}

beforeAll(async () => {
  mail = await startTestMailSandbox();
  // The same world (seed) as the stack's provider stand-in; `em` is only called once the stack exists.
  crm = await startCrmFixture({ world: createWorld(), em });
  stack = await startTestStack({ withWorker: false, apiEnv: { ...mail.env, ...crm.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
  aliceEmail = `alice-crm-${Date.now()}@example.com`;
  alice = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, aliceEmail);
  bob = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, `bob-crm-${Date.now()}@example.com`);
  const created = await alice.post('/app/api/keys', PRODUCT);
  productId = created.body.productId;
});
afterAll(async () => {
  await stack?.temporal.schedule.getHandle(crmScheduleId(productId)).delete().catch(() => {});
  await crm?.stop();
  await stack?.stop();
  await mail?.close();
});

describe('the CRM page API', () => {
  it('on Free, says the plan lacks it and refuses to connect', async () => {
    const page = await alice.get('/app/api/crm');
    expect(page.body).toMatchObject({ plan: 'free', planHasCrm: false, configured: true, providers: [{ provider: 'hubspot', label: 'HubSpot' }], connection: null });
    const connect = await alice.post('/app/api/crm/connect', { productId });
    expect([connect.status, connect.body.error]).toEqual([403, 'crm_plan_required']);
    // HubSpot is the only CRM offered: its score is where the form starts, before any connection.
    expect((await alice.get(`/app/api/crm/products/${productId}`)).body.settings.scoreProperty).toBe('hubspotscore');
  });

  it('connects through HubSpot consent; the state is single-use and only for the session that asked', async () => {
    await em().execute(`update account set plan = 'growth' where id = ?`, [await accountOf(aliceEmail)]);
    const { body } = await alice.post('/app/api/crm/connect', { productId });
    expect(body.authorizeUrl.startsWith(`${crm.hubspot.url}/oauth/authorize?`)).toBe(true);
    expect(new URL(body.authorizeUrl).searchParams.get('redirect_uri')).toBe(`${stack.apiUrl}/app/api/crm/callback`);

    // Bob cannot complete Alice's consent with her state.
    const stolen = await consent(bob, body.authorizeUrl);
    expect(stolen.search).toBe('?error=state');
    const { body: second } = await alice.post('/app/api/crm/connect', { productId });
    const declined = await consent(alice, second.authorizeUrl, 'deny');
    expect(declined.pathname + declined.search).toBe(`/app/crm/${productId}?error=denied`);

    const { body: third } = await alice.post('/app/api/crm/connect', { productId });
    const back = await consent(alice, third.authorizeUrl);
    expect(back.pathname + back.search).toBe(`/app/crm/${productId}?connected=1`);
    const page = await alice.get('/app/api/crm');
    expect(page.body.connection).toMatchObject({ provider: 'hubspot', portalId: '4000001', connectedUser: 'owner@portal.example', connectedBy: aliceEmail, status: 'connected' });
    // Tokens are stored encrypted.
    const [row] = await em().execute('select access_token, refresh_token from crm_connection where account_id = ?', [await accountOf(aliceEmail)]);
    expect(row.refresh_token.startsWith('v1.')).toBe(true);
    expect(row.refresh_token).not.toContain('na1-');
  });

  it('refuses bad settings field by field', async () => {
    const reply = await alice.put(`/app/api/crm/products/${productId}/settings`, {
      ...validSettings(), researchLimit: 51, hourUtc: 24, scoreProperty: 'email', chatWebhookUrl: 'http://hooks.example/services/x', digestEmail: 'not an address',
    });
    expect(reply.status).toBe(400);
    expect(reply.body.fields).toMatchObject({ researchLimit: expect.stringContaining('50'), hourUtc: expect.stringContaining('23') });
    const second = await alice.put(`/app/api/crm/products/${productId}/settings`, { ...validSettings(), scoreProperty: 'email', chatWebhookUrl: 'https://[::ffff:10.0.0.1]/hook', digestEmail: 'not an address' });
    expect(second.body.fields).toEqual({
      scoreProperty: 'email is not a HubSpot number field that can be a lead score. If you created it just now, reload the fields from HubSpot.',
      chatWebhookUrl: '[::ffff:10.0.0.1] is a private, loopback or reserved address, which we never contact.',
      digestEmail: 'Enter an e-mail address, or leave it empty for the account e-mail.',
    });
    const plainHttp = await alice.put(`/app/api/crm/products/${productId}/settings`, { ...validSettings(), chatWebhookUrl: 'http://example.com/hook' });
    expect(plainHttp.body.fields).toEqual({ chatWebhookUrl: 'The webhook address must start with https://.' });
  });

  it('saves settings, schedules the runs, shows the next run and previews the contacts', async () => {
    const saved = await alice.put(`/app/api/crm/products/${productId}/settings`, validSettings());
    expect(saved.status).toBe(200);
    const schedule = await stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe();
    expect(schedule.state.paused).toBe(false);
    const product = await alice.get(`/app/api/crm/products/${productId}`);
    expect(product.body.settings).toMatchObject({ cadence: 'mon_thu', hourUtc: 9, researchLimit: 3, minScore: 80 });
    const next = new Date(product.body.nextRunAt);
    expect([1, 4]).toContain(next.getUTCDay());
    expect(next.getUTCHours()).toBe(9);

    const preview = await alice.get(`/app/api/crm/products/${productId}/preview`);
    expect(preview.body.taken.map((each: { score: number }) => each.score)).toEqual([99, 97, 95]);
    expect(preview.body.skipped.map((each: { skipped: string }) => each.skipped)).toEqual(expect.arrayContaining(['free_mail', 'no_email']));
    expect(preview.body.taken[0].recordUrl).toBe(`${crm.hubspot.url}/contacts/4000001/record/0-1/${preview.body.taken[0].contactId}`);
    // Bob sees none of it.
    expect((await bob.get(`/app/api/crm/products/${productId}`)).status).toBe(404);
  });

  it('reads the portal\'s score properties from HubSpot once and keeps them; only a refresh reads again; the product page never calls HubSpot', async () => {
    const propertyReads = async () =>
      ((await (await fetch(`${crm.hubspot.url}/__admin/calls`)).json()) as { calls: Array<{ method: string; path: string }> }).calls
        .filter((call) => call.method === 'GET' && call.path === '/crm/v3/properties/contacts').length;
    await em().execute('delete from crm_portal_metadata');
    const before = await propertyReads();
    const first = await alice.get('/app/api/crm/score-properties');
    expect(first.status).toBe(200);
    expect(first.body.portalId).toBe('4000001');
    const names = first.body.properties.map((each: { name: string }) => each.name);
    expect(names).toEqual(expect.arrayContaining(['hubspotscore', 'hs_predictivecontactscore_v2']));
    expect(names).not.toContain('hs_object_id');
    expect(await propertyReads()).toBe(before + 1);

    // A page open during a run reads the product every 2 s and the properties once: HubSpot hears nothing more.
    for (let read = 0; read < 10; read++) expect((await alice.get(`/app/api/crm/products/${productId}`)).status).toBe(200);
    expect((await alice.get('/app/api/crm/score-properties')).body).toEqual(first.body);
    expect((await alice.put(`/app/api/crm/products/${productId}/settings`, validSettings())).status).toBe(200);
    expect(await propertyReads()).toBe(before + 1);

    // A property created in HubSpot since: unknown to the settings until the owner reloads the properties.
    const created = await fetch(`${crm.hubspot.url}/crm/v3/properties/contacts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${(await crm.tokens.accessToken(await accountOf(aliceEmail))).token}` },
      body: JSON.stringify({ name: 'fit_score', label: 'Fit score', type: 'number', fieldType: 'number', groupName: 'contactinformation' }),
    });
    expect(created.status).toBe(201);
    const refused = await alice.put(`/app/api/crm/products/${productId}/settings`, { ...validSettings(), scoreProperty: 'fit_score' });
    expect(refused.body.fields.scoreProperty).toContain('reload the fields from HubSpot');
    const refreshed = await alice.post('/app/api/crm/score-properties/refresh');
    expect(refreshed.body.properties.map((each: { name: string }) => each.name)).toContain('fit_score');
    expect(new Date(refreshed.body.readAt).getTime()).toBeGreaterThan(new Date(first.body.readAt).getTime());
    expect(await propertyReads()).toBe(before + 2);
    expect((await alice.put(`/app/api/crm/products/${productId}/settings`, { ...validSettings(), scoreProperty: 'fit_score' })).status).toBe(200);
    expect((await alice.put(`/app/api/crm/products/${productId}/settings`, validSettings())).status).toBe(200);
    // Bob has no connection.
    expect((await bob.get('/app/api/crm/score-properties')).status).not.toBe(200);
  });

  it('write rules and re-enrichment: properties a mapping can write, field errors, saved, and the preview\'s writes and credits', async () => {
    // A number property the portal's admins added: known once the properties are read again.
    addPortalNumberProperty(crm.hubspot);
    const portal = await alice.post('/app/api/crm/score-properties/refresh');
    const mappable = portal.body.mappableProperties as Array<{ name: string; type: string }>;
    expect(mappable).toEqual(expect.arrayContaining([{ name: 'industry', label: 'Industry', type: 'string' }, { name: 'numberofemployees', label: 'Number of Employees', type: 'number' }]));
    // Never an identity, a value HubSpot keeps, or a product's own property.
    for (const name of ['email', 'hubspotscore', 'hs_object_id', 'createdate']) expect(mappable.map((each) => each.name)).not.toContain(name);
    expect(mappable.some((each) => each.name.startsWith('pe_'))).toBe(false);

    const put = (extra: Record<string, unknown>) => alice.put(`/app/api/crm/products/${productId}/settings`, { ...validSettings(), ...extra });
    const cases: Array<[Record<string, unknown>, Record<string, string>]> = [
      [{ propertyMappings: [{ field: 'company_industry', property: 'no_such_one', rule: 'fill_empty' }] }, { propertyMappings: expect.stringContaining('no_such_one is not a HubSpot text or number field') }],
      [{ propertyMappings: [{ field: 'company_industry', property: 'numberofemployees', rule: 'fill_empty' }] }, { propertyMappings: 'Number of Employees (numberofemployees) is a number: only Company Employees can be written to it.' }],
      [{ propertyMappings: [{ field: 'company_industry', property: 'industry', rule: 'fill_empty' }, { field: 'company_industry', property: 'jobtitle', rule: 'overwrite' }] }, { propertyMappings: 'Company Industry is mapped twice: map each research output once.' }],
      [{ propertyMappings: [{ field: 'company_industry', property: 'industry', rule: 'fill_empty' }, { field: 'prospect_summary', property: 'industry', rule: 'overwrite' }] }, { propertyMappings: 'Industry (industry) is mapped twice: one research output per property.' }],
      [{ propertyMappings: [{ field: 'company_industry', property: 'industry', rule: 'sometimes' }] }, { propertyMappings: 'Choose only fill when empty, overwrite, or never.' }],
      [{ reEnrichAfterDays: 0 }, { reEnrichAfterDays: 'Enter a number of days from 1 to 365.' }],
      [{ reEnrichAfterDays: 400 }, { reEnrichAfterDays: 'Enter a number of days from 1 to 365.' }],
    ];
    for (const [body, fields] of cases) {
      const reply = await put(body);
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.fields, JSON.stringify(body)).toEqual(fields);
    }

    const mappings = [{ field: 'company_industry', property: 'industry', rule: 'fill_empty' }, { field: 'company_employees', property: 'numberofemployees', rule: 'overwrite' }];
    expect((await put({ propertyMappings: mappings, reEnrichAfterDays: 30 })).status).toBe(200);
    const product = await alice.get(`/app/api/crm/products/${productId}`);
    expect(product.body.settings).toMatchObject({ propertyMappings: mappings, reEnrichAfterDays: 30 });
    const preview = await alice.get(`/app/api/crm/products/${productId}/preview`);
    expect(preview.body).toMatchObject({ credits: 3, reEnriched: 0, reEnrichAfterDays: 30 });
    expect(preview.body.taken[0].writes).toEqual([
      { field: 'company_industry', property: 'industry', rule: 'fill_empty', current: null, action: 'fill', value: null },
      { field: 'company_employees', property: 'numberofemployees', rule: 'overwrite', current: null, action: 'fill', value: null },
    ]);
    // Left out, as older clients send: none, off.
    expect((await put({})).status).toBe(200);
    expect((await alice.get(`/app/api/crm/products/${productId}`)).body.settings).toMatchObject({ propertyMappings: [], reEnrichAfterDays: null });
  });

  it('disconnect revokes the token at HubSpot and pauses every integration of the account; settings stay', async () => {
    // A second product of the account with its own integration: the one connection is shared, so both pause.
    const second = (await alice.post('/app/api/keys', { ...PRODUCT, name: 'ForecastIQ' })).body.productId as number;
    expect((await alice.put(`/app/api/crm/products/${second}/settings`, validSettings())).status).toBe(200);
    const reply = await alice.post('/app/api/crm/disconnect');
    expect(reply.body).toMatchObject({ disconnected: true });
    expect([...reply.body.pausedProducts].sort((a: number, b: number) => a - b)).toEqual([productId, second].sort((a, b) => a - b));
    expect((await alice.get(`/app/api/crm/products/${second}`)).body.settings).toMatchObject({ active: false, pausedReason: 'disconnected' });
    expect((await stack.temporal.schedule.getHandle(crmScheduleId(second)).describe()).state.paused).toBe(true);
    await stack.temporal.schedule.getHandle(crmScheduleId(second)).delete();
    expect(crm.hubspot.portal().portalId).toBe(4000001);
    const state = await (await fetch(`${crm.hubspot.url}/__admin/state`)).json();
    expect(state.portals[0].tokens.refresh.every((token: { revoked: boolean }) => token.revoked)).toBe(true);
    const product = await alice.get(`/app/api/crm/products/${productId}`);
    expect(product.body.settings).toMatchObject({ active: false, pausedReason: 'disconnected', researchLimit: 3 });
    expect(product.body.nextRunAt).toBeNull();
    const schedule = await stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe();
    expect(schedule.state.paused).toBe(true);
    expect((await alice.get('/app/api/crm')).body.connection).toBeNull();
  });

  it('account deletion revokes a connection and pauses the integrations', async () => {
    const { body } = await alice.post('/app/api/crm/connect', { productId });
    await consent(alice, body.authorizeUrl);
    await alice.put(`/app/api/crm/products/${productId}/settings`, validSettings());
    const deleted = await alice.post('/app/api/account/delete', { password: 'correct horse battery' });
    expect(deleted.status).toBe(200);
    const [integration] = await em().execute('select active, paused_reason from crm_integration where product_id = ?', [productId]);
    expect(integration).toEqual({ active: false, paused_reason: 'account_deleted' });
    const [connection] = await em().execute('select status, refresh_token from crm_connection where account_id = ?', [await accountOf(aliceEmail)]);
    expect(connection).toEqual({ status: 'disconnected', refresh_token: null });
    expect((await stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe()).state.paused).toBe(true);
  });
});
