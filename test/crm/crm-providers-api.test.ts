// The CRM page's API with the three CRMs configured, through the real API and
// dashboard auth, against the Pipedrive and Salesforce stand-ins: the choice
// offered, connecting and denying through each CRM's consent (Salesforce
// with PKCE: the verifier kept with the state and spent with it), one CRM at
// a time, each CRM's lead score and fields, a refusal for good answered as
// a 400, Salesforce's admin steps, and disconnecting to choose again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { DOCUMENTED_LIMITS } from '../../sandbox/pipedrive/limits.ts';
import { SANDBOX_CLIENT_ID as PIPEDRIVE_ID, SANDBOX_CLIENT_SECRET as PIPEDRIVE_SECRET, startPipedriveSandbox, type PipedriveSandbox } from '../../sandbox/pipedrive/server.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { SANDBOX_CLIENT_ID as SALESFORCE_ID, SANDBOX_CLIENT_SECRET as SALESFORCE_SECRET, startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/server.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let hubspot: CrmFixture;
let pipedrive: PipedriveSandbox;
let salesforce: SalesforceSandbox;
let alice: DashboardClient;
let productId: number;
const em = () => stack.orm.em.fork();
const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };

/** The consent's answer as the CRM's page gives it (allow or deny), followed back into the app: where the app sends the browser. */
async function consent(standInUrl: string, authorizeUrl: string, decision: 'approve' | 'allow' | 'deny'): Promise<URL> {
  const answered = await fetch(`${standInUrl}/__admin/approve?decision=${decision}&authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
  const callback = new URL(answered.headers.get('location')!);
  const back = await alice.get(callback.pathname + callback.search);
  expect(back.status).toBe(302);
  return new URL(back.headers.get('location')!);
}

beforeAll(async () => {
  mail = await startTestMailSandbox();
  const world = createWorld();
  hubspot = await startCrmFixture({ world, em });
  pipedrive = await startPipedriveSandbox({ world });
  salesforce = await startSalesforceSandbox({ world });
  stack = await startTestStack({
    withWorker: false,
    apiEnv: {
      ...mail.env, ...hubspot.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off',
      PIPEDRIVE_CLIENT_ID: PIPEDRIVE_ID, PIPEDRIVE_CLIENT_SECRET: PIPEDRIVE_SECRET, PIPEDRIVE_OAUTH_BASE: pipedrive.url, PIPEDRIVE_API_BASE: pipedrive.url,
      SALESFORCE_CLIENT_ID: SALESFORCE_ID, SALESFORCE_CLIENT_SECRET: SALESFORCE_SECRET, SALESFORCE_LOGIN_BASE: salesforce.url,
    },
  });
  const email = `alice-crms-${Date.now()}@example.com`;
  alice = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email);
  productId = (await alice.post('/app/api/keys', PRODUCT)).body.productId;
  await em().execute(`update account set plan = 'growth' where owner_email = ?`, [email]);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await Promise.all([hubspot?.stop(), pipedrive?.close(), salesforce?.close(), mail?.close()]);
});

describe('the CRM page API with three CRMs', () => {
  it('offers each configured CRM, refuses one it does not know, and a denied Pipedrive consent changes nothing', async () => {
    const page = await alice.get('/app/api/crm');
    expect(page.body.providers).toEqual([
      { provider: 'hubspot', label: 'HubSpot' }, { provider: 'pipedrive', label: 'Pipedrive' }, { provider: 'salesforce', label: 'Salesforce' },
    ]);
    // No CRM chosen yet and three offered: no lead score to start from.
    expect((await alice.get(`/app/api/crm/products/${productId}`)).body.settings.scoreProperty).toBe('');
    const unknown = await alice.post('/app/api/crm/connect', { productId, provider: 'zoho' });
    expect([unknown.status, unknown.body.error, unknown.body.fields]).toEqual([400, 'invalid_request', { provider: 'Choose HubSpot, Pipedrive or Salesforce.' }]);

    const { authorizeUrl } = (await alice.post('/app/api/crm/connect', { productId, provider: 'pipedrive' })).body as { authorizeUrl: string };
    expect(authorizeUrl.startsWith(`${pipedrive.url}/oauth/authorize?`)).toBe(true);
    const back = await consent(pipedrive.url, authorizeUrl, 'deny');
    expect(back.pathname + back.search).toBe(`/app/crm/${productId}?error=denied`);
    expect((await alice.get('/app/api/crm')).body.connection).toBeNull();
  });

  it('connects Pipedrive: the company and its domain kept; no default lead score, so the form starts with none; a score field deleted there answers 400', async () => {
    const { authorizeUrl } = (await alice.post('/app/api/crm/connect', { productId, provider: 'pipedrive' })).body as { authorizeUrl: string };
    const back = await consent(pipedrive.url, authorizeUrl, 'approve');
    expect(back.searchParams.get('connected')).toBe('1');
    const { connection } = (await alice.get('/app/api/crm')).body;
    expect(connection).toMatchObject({ provider: 'pipedrive', portalId: String(pipedrive.company().companyId), status: 'connected' });
    const [stored] = await em().execute('select api_base from crm_connection where portal_id = ?', [connection.portalId]);
    expect(stored.api_base).toBe(pipedrive.url);

    expect((await alice.get(`/app/api/crm/products/${productId}`)).body.settings.scoreProperty).toBe('');
    const fields = (await alice.get('/app/api/crm/score-properties')).body;
    expect(fields).toMatchObject({ provider: 'pipedrive', defaultScoreProperty: null });
    const score = fields.properties.find((each: { label: string }) => each.label === 'Lead score');
    expect(score.name).toMatch(/^[0-9a-f]{40}$/);
    const saved = await alice.put(`/app/api/crm/products/${productId}/settings`, {
      cadence: 'daily', hourUtc: 8, scoreProperty: score.name, minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: 5,
      chatWebhookUrl: null, digestEnabled: false, digestEmail: null, active: false, crmObject: 'Lead',
    });
    expect(saved.status).toBe(200);
    // Contacts or Leads is Salesforce's alone.
    expect(saved.body.settings.crmObject).toBeNull();
    const preview = await alice.get(`/app/api/crm/products/${productId}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.taken[0].recordUrl).toBe(`${pipedrive.url}/person/${preview.body.taken[0].contactId}`);

    // The company's day of API tokens down to the reserve we leave it: the preview says so, and until when
    // (midnight UTC, when Pipedrive's day turns; times are UTC throughout the dashboard), both when Pipedrive's
    // answer shows it and while the hold-off lasts.
    pipedrive.setDailySpent(DOCUMENTED_LIMITS.dailyTokens - 9_000);
    const midnight = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1));
    const until = `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(midnight)} UTC`;
    try {
      for (const attempt of ['answered', 'held off']) {
        const held = await alice.get(`/app/api/crm/products/${productId}/preview`);
        expect([held.status, held.body.error], attempt).toEqual([503, 'crm_unavailable']);
        expect(held.body.message, attempt).toMatch(/^Pipedrive's daily API token budget is down to the 30% kept for the company's own use \(\d+ of 30000 tokens left\)\. /);
        expect(held.body.message, attempt).toContain(`Nothing is sent to Pipedrive until ${until}; runs wait and go on then.`);
      }
    } finally {
      pipedrive.setDailySpent(0);
      await em().execute(`update crm_portal_budget set held_until = now(), held_reason = null where provider = 'pipedrive'`);
    }

    // The owner deletes the field in Pipedrive: the preview says what Pipedrive refused.
    pipedrive.company().fields.delete([...pipedrive.company().fields.values()].find((field) => field.key === score.name)!.id);
    const gone = await alice.get(`/app/api/crm/products/${productId}/preview`);
    expect([gone.status, gone.body.error]).toEqual([400, 'invalid_request']);
    expect(gone.body.message).toMatch(/^Pipedrive refused it: .*lead score field/);
  });

  it('one CRM at a time: Salesforce is refused while Pipedrive is connected, and offered again once it is disconnected', async () => {
    const refused = await alice.post('/app/api/crm/connect', { productId, provider: 'salesforce' });
    expect([refused.status, refused.body.error, refused.body.message]).toEqual([409, 'crm_already_connected', 'Pipedrive is connected. Disconnect it before connecting Salesforce.']);
    // Reconnecting the same CRM stays possible (a new consent for the same company).
    expect((await alice.post('/app/api/crm/connect', { productId, provider: 'pipedrive' })).status).toBe(200);
    expect((await alice.post('/app/api/crm/disconnect', {})).status).toBe(200);
    expect((await fetch(`${pipedrive.url}/__admin/state`).then((reply) => reply.json()) as { grants: Array<{ revoked: boolean }> }).grants.every((grant) => grant.revoked)).toBe(true);
    expect((await alice.get('/app/api/crm')).body).toMatchObject({ connection: null });
    expect((await alice.post('/app/api/crm/connect', { productId, provider: 'salesforce' })).status).toBe(200);
  });

  it('connects Salesforce with PKCE: the challenge on the consent URL, the verifier spent with the state; the org and its instance kept', async () => {
    const { authorizeUrl } = (await alice.post('/app/api/crm/connect', { productId, provider: 'salesforce' })).body as { authorizeUrl: string };
    const query = new URL(authorizeUrl).searchParams;
    expect(query.get('code_challenge_method')).toBe('S256');
    expect(query.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [pending] = await em().execute(`select provider, code_verifier from crm_oauth_state where used_at is null and provider = 'salesforce' order by created_at desc limit 1`);
    expect(pending.code_verifier).toMatch(/^[A-Za-z0-9_-]{64}$/);
    const back = await consent(salesforce.url, authorizeUrl, 'allow');
    expect(back.searchParams.get('connected')).toBe('1');
    const [spent] = await em().execute(`select code_verifier, used_at from crm_oauth_state where provider = 'salesforce' order by created_at desc limit 1`);
    expect(spent.code_verifier).toBeNull();
    expect(spent.used_at).not.toBeNull();
    const { connection } = (await alice.get('/app/api/crm')).body;
    expect(connection).toMatchObject({ provider: 'salesforce', portalId: salesforce.org().orgId });
    // The state was single-use: the same callback again is refused.
    expect((await alice.get(`/app/api/crm/callback?code=x&state=${query.get('state')}`)).headers.get('location')).toContain('error=state');
  });

  it('Salesforce: Contacts or Leads saved; without the rights to create fields the admin\u2019s steps, with them the fields made', async () => {
    const score = (await alice.get('/app/api/crm/score-properties')).body.properties.find((each: { name: string }) => each.name === 'Lead_Score__c');
    expect(score).toBeTruthy();
    const saved = await alice.put(`/app/api/crm/products/${productId}/settings`, {
      cadence: 'daily', hourUtc: 8, scoreProperty: 'Lead_Score__c', minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: 5,
      chatWebhookUrl: null, digestEnabled: false, digestEmail: null, active: false, crmObject: 'Lead',
    });
    expect(saved.body.settings.crmObject).toBe('Lead');
    const preview = await alice.get(`/app/api/crm/products/${productId}/preview`);
    expect(preview.body.taken.length).toBeGreaterThan(0);
    expect(preview.body.taken.every((contact: { contactId: string; recordUrl: string }) => contact.contactId.startsWith('00Q') && contact.recordUrl.includes('/lightning/r/Lead/'))).toBe(true);

    salesforce.setFaults({ lacksFieldRights: true });
    const steps = await alice.post(`/app/api/crm/products/${productId}/fields`, {});
    expect(steps.status).toBe(200);
    expect(steps.body.ready).toBe(false);
    expect(steps.body.steps.join('\n')).toContain(`Pe_${productId}_Status__c`);
    salesforce.setFaults({ lacksFieldRights: false });
    expect((await alice.post(`/app/api/crm/products/${productId}/fields`, {})).body).toEqual({ ready: true });
    expect([...salesforce.org().objects.get('Lead')!.fields.keys()]).toContain(`Pe_${productId}_Status__c`);
  });
});
