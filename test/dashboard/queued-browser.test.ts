// An account waiting behind its own work sees "queued" with an honest
// estimate: a job behind its own earlier jobs, a list behind its own running
// list (no worker runs here, so both stay waiting). In Chromium, by role and
// text, with an axe scan of each state.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seriousAccessibilityFindings, signInThroughPage } from '../helpers/browser.ts';
import { listCustomer, type ListCustomer } from '../helpers/lists.ts';
import type { TestMailSandbox } from '../helpers/mail-sandbox.ts';
import type { TestStack } from '../helpers/test-stack.ts';
import { startDashboardSuite, type DashboardSuite } from '../helpers/dashboard-suite.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;

let suite: DashboardSuite;
beforeAll(async () => {
  suite = await startDashboardSuite({ withWorker: false });
  ({ stack, mail, browser } = suite);
}, 180_000);
afterAll(async () => {
  await suite?.stop();
});

async function signedIn(owner: ListCustomer): Promise<Page> {
  return (await signInThroughPage(browser, stack.apiUrl, owner)).page;
}

it("shows a job queued behind the account's own jobs, how many are ahead and about how long", async () => {
  const owner = await listCustomer(stack, mail, 'growth');
  const people = stack.providerWorld.world.samplePeople({}, 5);
  const ids: string[] = [];
  for (const person of people) ids.push((await stack.api.research(owner.key, { email: person.email })).body.research_id);
  const page = await signedIn(owner);
  await page.goto(`/app/jobs/${ids[4]}`);
  const notice = page.getByRole('alert').filter({ hasText: 'Queued behind your own jobs' });
  await notice.waitFor();
  // Four queued before it, none processing: five rounds of the default 30 s median (no job has ended yet).
  expect(await notice.textContent()).toContain('Queued: 4 of your jobs are ahead; about 3 minutes');
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
  await page.context().close();
}, 120_000);

it("shows a list queued behind the account's own running list: its place, the rows ahead and about when it starts", async () => {
  const owner = await listCustomer(stack, mail, 'starter');
  const people = stack.providerWorld.world.samplePeople({}, 20).slice(5);
  const first = await owner.client.post('/app/api/lists', { pasted: people.slice(0, 10).map((person) => person.email).join('\n'), name: 'Trade fair' });
  expect((await owner.client.post(`/app/api/lists/${first.body.list.id}/start`)).body.list.status).toBe('running');
  const second = await owner.client.post('/app/api/lists', { pasted: people.slice(10).map((person) => person.email).join('\n'), name: 'Webinar' });
  expect((await owner.client.post(`/app/api/lists/${second.body.list.id}/start`)).body.list).toMatchObject({ status: 'queued', queuePlace: 1 });

  const page = await signedIn(owner);
  await page.goto(`/app/lists/${second.body.list.id}`);
  await page.getByRole('heading', { name: 'List Webinar', level: 1 }).waitFor();
  const notice = page.getByRole('alert').filter({ hasText: 'Queued: 1st of your lists waiting' });
  await notice.waitFor();
  // The running list's 10 rows, 8 at a time: two rounds of the default 30 s median.
  expect(await notice.textContent()).toContain('10 of your rows are ahead of it in your running and waiting lists; it starts by itself in about 1 minute');
  expect(await page.getByRole('button', { name: 'Cancel list' }).count()).toBe(1);
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
  await page.context().close();
}, 120_000);
