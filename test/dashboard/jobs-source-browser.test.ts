// The Jobs page says where each job came from (API, a list by name,
// CRM), and a list's jobs link to their list. In Chromium, by role and label,
// with an axe scan.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seriousAccessibilityFindings } from '../helpers/browser.ts';
import { listCustomer, waitForListEnd } from '../helpers/lists.ts';
import type { TestMailSandbox } from '../helpers/mail-sandbox.ts';
import type { TestStack } from '../helpers/test-stack.ts';
import { startDashboardSuite, type DashboardSuite } from '../helpers/dashboard-suite.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;

let suite: DashboardSuite;
beforeAll(async () => {
  suite = await startDashboardSuite();
  ({ stack, mail, browser } = suite);
}, 180_000);
afterAll(async () => {
  await suite?.stop();
});

it('marks a list row\'s job with its list, linked to it, and an API job as such', async () => {
  const owner = await listCustomer(stack, mail, 'growth');
  const [listed, direct] = stack.providerWorld.world.samplePeople({}, 2);
  const { body } = await owner.client.post('/app/api/lists', { pasted: listed!.email, name: 'Fair attendees' });
  expect((await owner.client.post(`/app/api/lists/${body.list.id}/start`)).status).toBe(202);
  await waitForListEnd(owner.client, body.list.id);
  const accepted = await stack.api.research(owner.key, { email: direct!.email });
  await stack.api.waitForEnd(owner.key, accepted.body.research_id);

  const context = await browser.newContext({ baseURL: stack.apiUrl, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  await page.goto('/app/sign-in');
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
  const jobs = page.getByRole('table', { name: 'Research jobs' });
  await jobs.getByRole('columnheader', { name: 'From' }).waitFor();
  const listRow = jobs.getByRole('row').filter({ has: page.getByRole('link', { name: listed!.email }) });
  const apiRow = jobs.getByRole('row').filter({ has: page.getByRole('link', { name: direct!.email }) });
  expect(await apiRow.getByRole('cell', { name: 'API' }).count()).toBe(1);
  expect(await seriousAccessibilityFindings(page)).toEqual([]);

  await listRow.getByRole('link', { name: 'List Fair attendees' }).click();
  await page.waitForURL(new RegExp(`/app/lists/${body.list.id}$`));
  await page.getByRole('heading', { name: 'List Fair attendees', level: 1 }).waitFor();
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
  await context.close();
}, 180_000);
