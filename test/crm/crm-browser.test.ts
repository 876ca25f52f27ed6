// The CRM page in Chromium, by role and label, with an axe scan of each
// state: connect through the HubSpot stand-in's consent page, settings with
// a field error then saved, the lead score fields and their reload, write
// rules and re-enrichment with their field errors, our fields set up before
// the first run, the next run, the preview (what each contact gets written
// and what it costs), Run now and its results, and the preview read again
// when the run ends.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { crmPropertyName } from '../../domain/crm/fields.ts';
import { crmScheduleId } from '../../services/crm/schedules.ts';
import { accessibleDescription, ensureDashboardBuilt, launchChromium, screenshotForReadme, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { addPortalNumberProperty } from '../helpers/hubspot-portal.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let crm: CrmFixture;
let crmWorker: TestCrmWorker;
let browser: Browser;
let productId: number;
const PASSWORD = 'a long enough passphrase';
const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };
const em = () => stack.orm.em.fork();

beforeAll(async () => {
  await ensureDashboardBuilt();
  mail = await startTestMailSandbox();
  crm = await startCrmFixture({ world: createWorld(), em });
  addPortalNumberProperty(crm.hubspot);
  stack = await startTestStack({ apiEnv: { ...mail.env, ...crm.env, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  crmWorker = await startTestCrmWorker(stack, crm);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.temporal.schedule.getHandle(crmScheduleId(productId)).delete().catch(() => {});
  await crmWorker?.stop();
  await stack?.stop();
  await crm?.stop();
  await mail?.close();
});

/** The HubSpot stand-in's log of calls (since a moment). */
async function hubspotCalls(since?: string): Promise<Array<{ method: string; path: string; kind: string }>> {
  const reply = await fetch(`${crm.hubspot.url}/__admin/calls${since ? `?since=${encodeURIComponent(since)}` : ''}`);
  return ((await reply.json()) as { calls: Array<{ method: string; path: string; kind: string }> }).calls;
}

async function expectAccessible(page: Page) {
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
}

describe('the CRM page in Chromium', () => {
  it('connect → settings → preview → run now → results', async () => {
    const email = `crm-${Date.now()}@example.com`;
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, PASSWORD);
    const accountId = (await client.get('/app/api/me')).body.accountId as number;
    productId = (await client.post('/app/api/keys', PRODUCT)).body.productId;
    const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.goto('/app/sign-in');
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('textbox', { name: 'Password', exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    // On Free: why not, and where to change it.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'CRM' }).click();
    await page.getByRole('link', { name: 'Change your plan on the Billing page' }).waitFor();
    await expectAccessible(page);

    await em().execute(`update account set plan = 'growth' where id = ?`, [accountId]);
    await page.reload();
    // The one CRM configured here: no choice to make.
    await page.getByRole('button', { name: 'Connect HubSpot' }).waitFor();
    expect(await page.getByRole('radiogroup', { name: 'Your CRM' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Connect HubSpot' }).click();
    // HubSpot's consent page (the stand-in), then back.
    await page.getByRole('button', { name: 'Connect app' }).click();
    await page.getByRole('status').filter({ hasText: 'HubSpot portal 4000001 is connected.' }).waitFor();
    await page.getByText(`by ${email}`).waitFor();
    await expectAccessible(page);

    const settings = page.getByRole('form', { name: 'CRM settings' });
    await settings.getByRole('switch', { name: /Active/ }).check();
    const limit = settings.getByRole('textbox', { name: 'Research limit per run' });
    await limit.fill('60');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => accessibleDescription(limit)).toContain('at most 50');
    await expectAccessible(page);

    await limit.fill('3');
    await settings.getByRole('textbox', { name: 'Chat webhook URL' }).fill(`${crm.chat.url}/services/T1/B1/browser`);
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved' }).waitFor();
    await page.getByText(/^Next run: /).waitFor();
    await expectAccessible(page);

    // The lead score property offers scores, never the Record ID; the portal's fields are read once and again on Reload.
    await settings.getByRole('combobox', { name: 'Lead score property' }).click();
    const options = page.getByRole('listbox').getByRole('option');
    await options.first().waitFor();
    const offered = await options.allInnerTexts();
    expect(offered).toContain('HubSpot Score (hubspotscore)');
    expect(offered.some((option) => option.includes('hs_object_id'))).toBe(false);
    await page.keyboard.press('Escape');
    await settings.getByText(/^Fields read from HubSpot .* UTC\.$/).waitFor();
    const propertyReads = async () => (await hubspotCalls()).filter((call) => call.method === 'GET' && call.path === '/crm/v3/properties/contacts').length;
    const readsBefore = await propertyReads();
    await page.reload();
    await settings.getByText(/^Fields read from HubSpot /).waitFor();
    expect(await propertyReads()).toBe(readsBefore);
    const reload = settings.getByRole('button', { name: 'Reload fields from HubSpot' });
    await reload.click();
    await expect.poll(propertyReads).toBe(readsBefore + 1);
    await expect.poll(() => reload.getAttribute('data-loading')).toBeNull();
    await expectAccessible(page);
    // HubSpot down on a reload: said on the page, and the fields read before stay offered.
    await fetch(`${crm.hubspot.url}/__admin/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ on: 'properties', serverErrorNext: 5 }) });
    await reload.click();
    await settings.getByRole('alert').filter({ hasText: 'HubSpot cannot be reached right now' }).waitFor();
    await settings.getByText(/^Fields read from HubSpot /).waitFor();
    await expectAccessible(page);
    await fetch(`${crm.hubspot.url}/__admin/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ on: 'all', serverErrorNext: 0 }) });

    // Write rules: research outputs mapped onto the portal's own properties, each with its rule; re-enrichment.
    await settings.getByRole('button', { name: 'Add a property mapping' }).click();
    const mapping1 = settings.getByRole('group', { name: 'Mapping 1' });
    expect(await mapping1.getByRole('combobox', { name: 'Research output' }).inputValue()).toBe('Company Industry');
    await mapping1.getByRole('combobox', { name: 'HubSpot field' }).click();
    // A text output is offered text properties only: no number, no e-mail, no value HubSpot keeps.
    const offeredProperties = await page.getByRole('listbox').getByRole('option').allInnerTexts();
    expect(offeredProperties).toContain('Industry (industry)');
    expect(offeredProperties.some((option) => /numberofemployees|\(email\)|hubspotscore|hs_object_id/.test(option))).toBe(false);
    await page.getByRole('option', { name: 'Industry (industry)' }).click();
    expect(await mapping1.getByRole('combobox', { name: 'Rule' }).inputValue()).toBe('Only fill when empty');
    await settings.getByRole('button', { name: 'Add a property mapping' }).click();
    const mapping2 = settings.getByRole('group', { name: 'Mapping 2' });
    expect(await mapping2.getByRole('combobox', { name: 'Research output' }).inputValue()).toBe('Company Employees');
    await mapping2.getByRole('combobox', { name: 'HubSpot field' }).click();
    await page.getByRole('option', { name: 'Number of Employees (numberofemployees)' }).click();
    await mapping2.getByRole('combobox', { name: 'Rule' }).click();
    await page.getByRole('option', { name: 'Overwrite' }).click();
    // A third onto a property already written: the server says which.
    await settings.getByRole('button', { name: 'Add a property mapping' }).click();
    const mapping3 = settings.getByRole('group', { name: 'Mapping 3' });
    await mapping3.getByRole('combobox', { name: 'HubSpot field' }).click();
    await page.getByRole('option', { name: 'Industry (industry)' }).click();
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByRole('alert').filter({ hasText: 'Industry (industry) is mapped twice: one research output per property.' }).waitFor();
    await expectAccessible(page);
    await mapping3.getByRole('button', { name: 'Remove mapping 3' }).click();
    await settings.getByRole('switch', { name: 'Research completed contacts again' }).check();
    const days = settings.getByRole('textbox', { name: 'Research again after (days)' });
    await days.fill('0');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => accessibleDescription(days)).toContain('Enter a number of days from 1 to 365.');
    await expectAccessible(page);
    await days.fill('30');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    const storedRules = async () => (await em().execute('select property_mappings, re_enrich_after_days from crm_integration where product_id = ?', [productId]))[0];
    await expect.poll(storedRules).toEqual({
      property_mappings: [{ field: 'company_industry', property: 'industry', rule: 'fill_empty' }, { field: 'company_employees', property: 'numberofemployees', rule: 'overwrite' }],
      re_enrich_after_days: 30,
    });
    await page.getByRole('status').filter({ hasText: 'Settings saved' }).waitFor();
    await expectAccessible(page);

    // Our properties made before the first run, on request: HubSpot's API makes them for any connected user.
    const ownStatus = crmPropertyName(productId, 'status');
    expect(crm.hubspot.portal().properties.has(ownStatus)).toBe(false);
    await page.getByRole('heading', { name: 'Our fields in HubSpot' }).waitFor();
    await page.getByRole('button', { name: 'Set up the fields now' }).click();
    await page.getByRole('status').filter({ hasText: 'The fields are ready in HubSpot.' }).waitFor();
    expect(crm.hubspot.portal().properties.has(ownStatus)).toBe(true);
    await expectAccessible(page);

    // A contact whose name is as long as HubSpot allows (65,536 characters) is shown cut to a readable length.
    const added = await fetch(`${crm.hubspot.url}/__admin/contacts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contacts: [{ email: 'long.name@gmail.com', firstname: 'L'.repeat(65_000), lastname: 'Long', hubspotscore: 99 }] }),
    });
    expect(added.status).toBe(201);
    // The top contact already has an industry of its own: the preview says it is left alone.
    const top = [...crm.hubspot.portal().contacts.values()].find((contact) => contact.properties.hubspotscore === '99' && !contact.properties.email?.endsWith('@gmail.com'))!;
    Object.assign(top.properties, { industry: 'Retail' });
    Object.assign(top.indexed, { industry: 'Retail' });
    // A second contact with the top one's e-mail: flagged, never researched or written twice.
    const copy = await fetch(`${crm.hubspot.url}/__admin/contacts`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contacts: [{ email: top.properties.email!.toUpperCase(), firstname: 'Copy', lastname: 'Of Top', hubspotscore: 98 }] }),
    });
    expect(copy.status).toBe(201);
    await page.getByRole('button', { name: 'Preview the next run' }).click();
    const preview = page.getByRole('table', { name: 'Contacts of the next run' });
    await preview.waitFor();
    expect(await preview.getByRole('row').filter({ hasText: 'Researched' }).count()).toBe(3);
    await page.getByText('The next run researches 3 contacts for 3 credits.').waitFor();
    expect(await preview.getByRole('row').filter({ hasText: 'Copy Of Top' }).getByRole('cell').allInnerTexts()).toEqual([top.properties.email!, '98', 'Nothing', 'Skipped: e-mail shared with another contact']);
    const topRow = preview.getByRole('row').filter({ hasText: top.properties.email! });
    expect(await topRow.getByRole('listitem').allInnerTexts()).toEqual([
      'The product\'s properties', 'Company Industry → industry: left alone, it has a value (now “Retail”)', 'Company Employees → numberofemployees: filled',
    ]);
    expect(await preview.getByRole('row').filter({ hasText: 'Researched' }).filter({ hasText: 'Company Industry → industry: filled' }).count()).toBe(2);
    expect(await preview.getByRole('row').filter({ hasText: 'Skipped: free-mail address' }).count()).toBeGreaterThan(0);
    const longName = await preview.getByRole('row').filter({ hasText: 'long.name@gmail.com' }).getByRole('rowheader').innerText();
    expect(longName).toMatch(/^L{59}…$/);
    await expectAccessible(page);
    // The README's picture shows the preview's table.
    await preview.evaluate((table) => window.scrollBy(0, table.getBoundingClientRect().top - 160));
    await screenshotForReadme(page, 'crm');

    const emailsIn = (texts: string[]) => texts.flatMap((text) => text.match(/[^\s@]+@[^\s@]+\.[a-z]+/g) ?? []);
    const nextRunEmails = async () => emailsIn(await preview.getByRole('row').filter({ hasText: /Researched$/ }).allInnerTexts());
    const takenBefore = await nextRunEmails();
    expect(takenBefore).toHaveLength(3);

    const runStartedAt = new Date().toISOString();
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.getByRole('status').filter({ hasText: 'The run started' }).waitFor();
    const runs = page.getByRole('table', { name: 'Last runs' });
    await runs.getByRole('cell', { name: 'Completed' }).waitFor({ timeout: 90_000 });
    const contacts = page.getByRole('table', { name: 'Contacts of the last run' });
    expect(await contacts.getByRole('row').filter({ hasText: 'Researched' }).count()).toBe(3);
    // The page open through the whole run read its progress from our records: the one property listing is the run's own.
    expect((await hubspotCalls(runStartedAt)).filter((call) => call.method === 'GET' && call.path === '/crm/v3/properties/contacts')).toHaveLength(1);
    // Once the run ended the preview was read again by itself: the contacts just researched are no longer the next run's.
    const researchedEmails = emailsIn(await contacts.getByRole('row').filter({ hasText: 'Researched' }).getByRole('rowheader').allInnerTexts());
    expect([...researchedEmails].sort()).toEqual([...takenBefore].sort());
    await expect.poll(nextRunEmails, { timeout: 10_000 }).not.toEqual(takenBefore);
    expect((await nextRunEmails()).some((email) => researchedEmails.includes(email))).toBe(false);
    await expectAccessible(page);
    const first = contacts.getByRole('row').filter({ hasText: 'Researched' }).first();
    const hubspotLink = first.getByRole('link', { name: /in HubSpot$/ });
    expect(await hubspotLink.getAttribute('href')).toMatch(new RegExp(`^${crm.hubspot.url}/contacts/4000001/record/0-1/\\d+$`));
    await expectAccessible(page);
    // The run wrote the industry it found onto the contacts whose own was empty, and left the top contact's "Retail" alone.
    expect(crm.hubspot.portal().contacts.get(top.id)!.properties.industry).toBe('Retail');

    // Re-enrichment: a contact enriched longer ago than 30 days is the next run's again, a credit said in the preview.
    const again = (await hubspotLink.getAttribute('href'))!.split('/').at(-1)!;
    const longAgo = new Date(Date.now() - 40 * 86_400_000);
    await em().execute('update crm_contact_state set updated_at = ? where product_id = ? and contact_id = ?', [longAgo, productId, again]);
    for (const values of [crm.hubspot.portal().contacts.get(again)!.properties, crm.hubspot.portal().contacts.get(again)!.indexed]) values[`pe_${productId}_enriched_at`] = longAgo.toISOString();
    await page.getByRole('button', { name: 'Preview the next run' }).click();
    await preview.getByRole('row').filter({ hasText: /Researched again \(enriched / }).waitFor();
    await page.getByText(/^The next run researches 3 contacts for 3 credits, 1 of them again: enriched more than 30 days ago\.$/).waitFor();
    await expectAccessible(page);
    await first.getByRole('link', { name: /^res_/ }).click();
    // The CRM page has a heading too: wait for the job page's own.
    await page.waitForURL(/\/app\/jobs\/res_/);
    await page.getByRole('heading', { level: 1, name: /^Job for / }).waitFor();
    await expectAccessible(page);
    await context.close();
  }, 180_000);
});
