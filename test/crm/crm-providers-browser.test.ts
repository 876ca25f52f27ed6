// The CRM page in Chromium with the three CRMs configured (HubSpot, Pipedrive,
// Salesforce stand-ins), by role and label, with an axe scan of each state:
// the choice of CRM; Pipedrive's consent page cancelled, then allowed; its
// missing default lead score, the company's own score field, the preview
// linking the stand-in's person pages, and a run that completes; Pipedrive
// disconnected through its dialog and the choice offered again; Salesforce's
// consent with PKCE, Contacts or Leads, and our fields set up, first by a
// user without the rights (the admin's steps), then with them.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownFieldName } from '../../integrations/pipedrive/fields.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { SEED_COMPANY_ID } from '../../sandbox/pipedrive/company.ts';
import { SANDBOX_CLIENT_ID as PIPEDRIVE_CLIENT_ID, SANDBOX_CLIENT_SECRET as PIPEDRIVE_CLIENT_SECRET, startPipedriveSandbox, type PipedriveSandbox } from '../../sandbox/pipedrive/server.ts';
import { SANDBOX_CLIENT_ID as SALESFORCE_CLIENT_ID, SANDBOX_CLIENT_SECRET as SALESFORCE_CLIENT_SECRET, startSalesforceSandbox, type SalesforceSandbox } from '../../sandbox/salesforce/server.ts';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { crmScheduleId } from '../../services/crm/schedules.ts';
import { ensureDashboardBuilt, holdRequests, launchChromium, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let crm: CrmFixture;
let pipedrive: PipedriveSandbox;
let salesforce: SalesforceSandbox;
let crmWorker: TestCrmWorker;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let productId: number;
let email: string;
const PASSWORD = 'a long enough passphrase';
const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };
const em = () => stack.orm.em.fork();

beforeAll(async () => {
  await ensureDashboardBuilt();
  mail = await startTestMailSandbox();
  const world = createWorld();
  [crm, pipedrive, salesforce] = await Promise.all([
    startCrmFixture({ world, em }),
    startPipedriveSandbox({ world, people: 20 }),
    startSalesforceSandbox({ world, people: 20 }),
  ]);
  // All three CRMs configured, as scripts/lib/sandboxes.ts gives `npm run dev` the stand-ins.
  const env = {
    ...crm.env,
    PIPEDRIVE_OAUTH_BASE: pipedrive.url, PIPEDRIVE_API_BASE: pipedrive.url, PIPEDRIVE_CLIENT_ID, PIPEDRIVE_CLIENT_SECRET,
    SALESFORCE_LOGIN_BASE: salesforce.url, SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET,
  };
  stack = await startTestStack({ apiEnv: { ...mail.env, ...env, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  crmWorker = await startTestCrmWorker(stack, { ...crm, env });
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (productId) await stack?.temporal.schedule.getHandle(crmScheduleId(productId)).delete().catch(() => {});
  await crmWorker?.stop();
  await stack?.stop();
  await Promise.all([crm?.stop(), pipedrive?.close(), salesforce?.close()]);
  await mail?.close();
});

async function expectAccessible() {
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
}

const yourCrm = () => page.getByRole('radiogroup', { name: 'Your CRM' });
const settings = () => page.getByRole('form', { name: 'CRM settings' });

describe('the CRM page in Chromium with HubSpot, Pipedrive and Salesforce configured', () => {
  it('offers the three CRMs; Pipedrive cancelled on its consent page, then allowed', async () => {
    email = `crm-providers-${Date.now()}@example.com`;
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const accountId = (await client.get('/app/api/me')).body.accountId as number;
    productId = (await client.post('/app/api/keys', PRODUCT)).body.productId;
    await em().execute(`update account set plan = 'growth', credit_limit = 1000 where id = ?`, [accountId]);
    context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    page = await context.newPage();
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    // While the page's data loads: a named status (a bare loader with a label is an axe finding).
    const releaseCrm = await holdRequests(page, '**/app/api/crm', 'GET');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'CRM' }).click();
    await page.getByRole('status', { name: 'Loading the CRM integration' }).waitFor();
    await expectAccessible();
    await releaseCrm();

    // The choice: the configured CRMs in their order, the button naming the one chosen.
    await yourCrm().waitFor();
    expect(await yourCrm().getByRole('radio').evaluateAll((radios) => radios.map((radio) => radio.getAttribute('value')))).toEqual(['hubspot', 'pipedrive', 'salesforce']);
    for (const name of ['HubSpot', 'Pipedrive', 'Salesforce']) await yourCrm().getByRole('radio', { name }).waitFor();
    await page.getByRole('button', { name: 'Connect HubSpot' }).waitFor();
    await expectAccessible();
    await yourCrm().getByRole('radio', { name: 'Pipedrive' }).check();
    await screenshotForReadme(page, 'crm-choice');
    await page.getByRole('button', { name: 'Connect Pipedrive' }).click();

    // Pipedrive's consent page (the stand-in's HTML): Cancel brings the owner back with nothing connected.
    await page.getByRole('heading', { name: 'Install the app in Pipedrive' }).waitFor();
    expect(new URL(page.url()).origin).toBe(pipedrive.url);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(new RegExp(`/app/crm/${productId}\\?error=denied`));
    const cancelled = page.getByRole('alert').filter({ hasText: 'The connection was cancelled in Pipedrive. Nothing changed.' });
    await cancelled.waitFor();
    expect(await cancelled.innerText()).toContain('Pipedrive is not connected');
    // The CRM just tried is still the one chosen.
    expect(await yourCrm().getByRole('radio', { name: 'Pipedrive' }).isChecked()).toBe(true);
    await expectAccessible();
    expect((await em().execute('select count(*)::int as n from crm_connection'))[0].n).toBe(0);

    await page.getByRole('button', { name: 'Connect Pipedrive' }).click();
    await page.getByRole('button', { name: 'Allow and Install' }).click();
    await page.waitForURL(new RegExp(`/app/crm/${productId}\\?connected=1`));
    await page.getByRole('status').filter({ hasText: `Pipedrive company ${SEED_COMPANY_ID} is connected.` }).waitFor();
    await page.getByText(new RegExp(`^Connected to Pipedrive company ${SEED_COMPANY_ID} by ${email.replace(/[.]/g, '\\.')} \\(Pipedrive user admin@company\\.example\\)`)).waitFor();
    await page.getByRole('heading', { name: 'Pipedrive connection' }).waitFor();
    expect(await yourCrm().count()).toBe(0);
    await expectAccessible();
  }, 120_000);

  it('Pipedrive: no default lead score, the company\'s own chosen and saved; the preview links its person pages; Run now completes', async () => {
    const form = settings();
    const score = form.getByRole('combobox', { name: 'Lead score property' });
    await form.getByText('Pipedrive has no lead score of its own: choose the number field your team scores with.').waitFor();
    await form.getByText(/^Fields read from Pipedrive .* UTC\.$/).waitFor();
    expect(await score.inputValue()).toBe('');
    expect(await score.getAttribute('placeholder')).toBe('Choose a number field');
    await form.getByRole('group', { name: 'Write to your own Pipedrive fields' }).waitFor();
    await expectAccessible();

    // The company's number fields are offered; its texts are not.
    await score.click();
    const offered = await page.getByRole('listbox').getByRole('option').allInnerTexts();
    expect(offered.some((option) => /^Lead score \([0-9a-f]{40}\)$/.test(option))).toBe(true);
    expect(offered.some((option) => option.startsWith('Background') || option.startsWith('Employees'))).toBe(false);
    await page.getByRole('option', { name: /^Lead score \(/ }).click();
    await form.getByRole('switch', { name: /Active/ }).check();
    await form.getByRole('textbox', { name: 'Research limit per run' }).fill('3');
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved' }).waitFor();
    const leadScore = [...pipedrive.company().fields.values()].find((field) => field.name === 'Lead score')!;
    expect((await em().execute('select score_property from crm_integration where product_id = ?', [productId]))[0].score_property).toBe(leadScore.key);
    await page.getByText(/^Next run: /).waitFor();
    await expectAccessible();

    await page.getByRole('button', { name: 'Preview the next run' }).click();
    const preview = page.getByRole('table', { name: 'Contacts of the next run' });
    await preview.waitFor();
    await page.getByText('The next run researches 3 contacts for 3 credits.').waitFor();
    await preview.getByRole('columnheader', { name: 'Written to Pipedrive' }).waitFor();
    const taken = preview.getByRole('row').filter({ hasText: /Researched$/ });
    expect(await taken.count()).toBe(3);
    for (const link of await taken.getByRole('rowheader').getByRole('link').all()) {
      expect(await link.getAttribute('href')).toMatch(new RegExp(`^${pipedrive.url}/person/\\d+$`));
    }
    // A contact's link opens its person in Pipedrive.
    const top = taken.first().getByRole('rowheader').getByRole('link');
    const [personPage] = await Promise.all([context.waitForEvent('page'), top.click()]);
    await personPage.getByRole('heading', { level: 1, name: await top.innerText() }).waitFor();
    await personPage.close();
    await expectAccessible();

    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('status').filter({ hasText: 'The run started' }).waitFor();
    const runs = page.getByRole('table', { name: 'Last runs' });
    await runs.getByRole('cell', { name: 'Completed' }).waitFor({ timeout: 90_000 });
    const contacts = page.getByRole('table', { name: 'Contacts of the last run' });
    const researched = contacts.getByRole('row').filter({ hasText: 'Researched' });
    expect(await researched.count()).toBe(3);
    await contacts.getByRole('columnheader', { name: 'Pipedrive' }).waitFor();
    const link = researched.first().getByRole('link', { name: /^Contact \d+ in Pipedrive$/ });
    const personId = Number((await link.getAttribute('href'))!.match(new RegExp(`^${pipedrive.url}/person/(\\d+)$`))![1]);
    // The run wrote our status field onto the person in the stand-in.
    const person = pipedrive.company().persons.get(personId)!;
    const statusField = [...pipedrive.company().fields.values()].find((field) => field.name === ownFieldName(productId, 'status'))!;
    expect(statusField.options!.find((option) => option.id === person.custom[statusField.key])?.label).toBe('Completed');
    await expectAccessible();
  }, 150_000);

  it('Pipedrive disconnected through its dialog; Salesforce chosen, its consent denied then allowed with PKCE, Contacts or Leads, our fields by an admin\'s steps, then ready', async () => {
    // One CRM per account: while Pipedrive is connected, another is refused (the page offers none).
    const second = await page.request.post('/app/api/crm/connect', { data: { productId, provider: 'salesforce' }, headers: { origin: stack.apiUrl } });
    expect(second.status()).toBe(409);
    expect((await second.json()).error).toBe('crm_already_connected');
    await page.getByRole('button', { name: 'Disconnect Pipedrive' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disconnect Pipedrive?' });
    await dialog.waitFor();
    await dialog.getByText(/revokes our access to Pipedrive and pauses the CRM integration of every product/).waitFor();
    await expectAccessible();
    await dialog.getByRole('button', { name: 'Disconnect', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The choice is offered again; the product's integration is paused until its owner turns it on.
    await yourCrm().waitFor();
    await page.getByRole('heading', { name: 'CRM connection' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Paused because your CRM was disconnected.' }).waitFor();
    await expectAccessible();

    await yourCrm().getByRole('radio', { name: 'Salesforce' }).check();
    // Salesforce's consent page denied first: back with nothing connected, Salesforce still the one chosen.
    await page.getByRole('button', { name: 'Connect Salesforce' }).click();
    await page.getByRole('heading', { name: 'Allow Access?' }).waitFor();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL(new RegExp(`/app/crm/${productId}\\?error=denied`));
    const denied = page.getByRole('alert').filter({ hasText: 'The connection was cancelled in Salesforce. Nothing changed.' });
    await denied.waitFor();
    expect(await denied.innerText()).toContain('Salesforce is not connected');
    expect(await yourCrm().getByRole('radio', { name: 'Salesforce' }).isChecked()).toBe(true);
    expect((await em().execute(`select count(*)::int as n from crm_connection where status = 'connected'`))[0].n).toBe(0);
    await expectAccessible();

    await page.getByRole('button', { name: 'Connect Salesforce' }).click();
    await page.getByRole('heading', { name: 'Allow Access?' }).waitFor();
    // PKCE: the consent URL carries an S256 challenge; the code is exchanged with its verifier (the stand-in refuses it otherwise).
    const authorize = new URL(page.url());
    expect(authorize.origin).toBe(salesforce.url);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(new RegExp(`/app/crm/${productId}\\?connected=1`));
    const { orgId } = salesforce.org();
    await page.getByRole('status').filter({ hasText: `Salesforce org ${orgId} is connected.` }).waitFor();
    await page.getByRole('heading', { name: 'Salesforce connection' }).waitFor();
    // The pause was Pipedrive's connection's, not Salesforce's.
    await page.getByRole('status').filter({ hasText: 'Paused because an earlier CRM connection was disconnected.' }).waitFor();
    await expectAccessible();

    // Salesforce settings: its number fields, and which records a run researches.
    const form = settings();
    await form.getByText(/^Fields read from Salesforce .* UTC\.$/).waitFor();
    await form.getByText('Salesforce has no lead score of its own: choose the number field your team scores with.').waitFor();
    const records = form.getByRole('combobox', { name: 'Records to research' });
    expect(await records.inputValue()).toBe('Contacts');
    // Pipedrive's score field is no Salesforce field: none is shown chosen.
    const score = form.getByRole('combobox', { name: 'Lead score property' });
    expect(await score.inputValue()).toBe('');
    await score.click();
    await page.getByRole('option', { name: 'Lead Score (Lead_Score__c)' }).click();
    await records.click();
    await page.getByRole('option', { name: 'Leads' }).click();
    await form.getByRole('switch', { name: /Active/ }).check();
    await form.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved' }).waitFor();
    await expect.poll(async () => (await em().execute('select score_property, crm_object, active, paused_reason from crm_integration where product_id = ?', [productId]))[0])
      .toEqual({ score_property: 'Lead_Score__c', crm_object: 'Lead', active: true, paused_reason: null });
    await page.getByText(/^Next run: /).waitFor();
    expect(await page.getByText(/^Paused because/).count()).toBe(0);
    await expectAccessible();

    // Our fields, by a user without the rights to make them: the admin's steps, and nothing made.
    await page.getByRole('heading', { name: 'Our fields in Salesforce' }).waitFor();
    const setUp = page.getByRole('button', { name: 'Set up the fields now' });
    await setSalesforceFaults({ lacksFieldRights: true });
    await setUp.click();
    const steps = page.getByRole('alert').filter({ hasText: 'An admin must create the fields in Salesforce' });
    await steps.waitFor();
    const items = await steps.getByRole('listitem').allInnerTexts();
    expect(items[0]).toBe(`The connected Salesforce user may not create fields. A Salesforce admin creates nine fields on Lead for "${PRODUCT.name}" once:`);
    expect(items.some((item) => item.includes(`API Name Pe_${productId}_Prospect_Enrichment`))).toBe(true);
    expect(await customFieldsOf('Lead')).toEqual([]);
    await expectAccessible();

    await setSalesforceFaults({ lacksFieldRights: false });
    await setUp.click();
    await page.getByRole('status').filter({ hasText: 'The fields are ready in Salesforce.' }).waitFor();
    expect(await steps.count()).toBe(0);
    expect((await customFieldsOf('Lead')).filter((name) => name.startsWith(`Pe_${productId}_`))).toHaveLength(9);
    await expectAccessible();

    // The preview lists Leads, each linked to its record page in Salesforce's app; Run now researches and writes them.
    await page.getByRole('button', { name: 'Preview the next run' }).click();
    const preview = page.getByRole('table', { name: 'Contacts of the next run' });
    await preview.getByRole('columnheader', { name: 'Written to Salesforce' }).waitFor();
    const taken = preview.getByRole('row').filter({ hasText: /Researched$/ });
    await taken.first().waitFor();
    for (const link of await taken.getByRole('rowheader').getByRole('link').all()) {
      expect(await link.getAttribute('href')).toMatch(new RegExp(`^${salesforce.url}/lightning/r/Lead/00Q\\w+/view$`));
    }
    await expectAccessible();
    const runsBefore = await page.getByRole('table', { name: 'Last runs' }).getByRole('row').count();
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('status').filter({ hasText: 'The run started' }).waitFor();
    // The new run (Salesforce's) on top, completed, its contacts researched and linked to their Leads.
    const runs = page.getByRole('table', { name: 'Last runs' });
    await expect.poll(() => runs.getByRole('row').count(), { timeout: 30_000 }).toBe(runsBefore + 1);
    await runs.getByRole('row').nth(1).getByText('Completed').waitFor({ timeout: 90_000 });
    const contacts = page.getByRole('table', { name: 'Contacts of the last run' });
    const researched = contacts.getByRole('row').filter({ hasText: 'Researched' });
    await researched.first().getByRole('link', { name: /^Contact 00Q\w+ in Salesforce$/ }).waitFor();
    const leadId = (await researched.first().getByRole('link', { name: /in Salesforce$/ }).innerText()).split(' ')[1]!;
    expect(salesforce.org().objects.get('Lead')!.records.get(leadId)![`Pe_${productId}_Status__c`]).toBe('completed');
    await expectAccessible();
  }, 180_000);
});

async function setSalesforceFaults(faults: Record<string, unknown>) {
  const reply = await fetch(`${salesforce.url}/__admin/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });
  expect(reply.status).toBe(200);
}

/** The custom fields our app made on an object of the stand-in's org. */
async function customFieldsOf(object: 'Contact' | 'Lead'): Promise<string[]> {
  const state = (await (await fetch(`${salesforce.url}/__admin/state`)).json()) as { objects: Record<string, { customFields: Array<{ name: string }> }> };
  return state.objects[object]!.customFields.map((field) => field.name);
}
