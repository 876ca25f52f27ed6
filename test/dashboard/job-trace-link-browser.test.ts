// A job's page links to the job's trace in the trace store's UI (TRACE_UI_URL,
// through GET /app/api/config) when the job ran with tracing on, and shows no
// link for a job that did not. In Chromium, by role and label, with an axe scan.
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seriousAccessibilityFindings, signInThroughPage } from '../helpers/browser.ts';
import { listCustomer, type ListCustomer } from '../helpers/lists.ts';
import type { TestMailSandbox } from '../helpers/mail-sandbox.ts';
import type { TestStack } from '../helpers/test-stack.ts';
import { startDashboardSuite, type DashboardSuite } from '../helpers/dashboard-suite.ts';

const TRACE_UI_URL = 'http://traces.example.test/trace/{trace_id}';
let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;

let suite: DashboardSuite;
beforeAll(async () => {
  suite = await startDashboardSuite({ apiEnv: { TRACE_UI_URL } });
  ({ stack, mail, browser } = suite);
}, 180_000);
afterAll(async () => {
  await suite?.stop();
});

async function signIn(owner: ListCustomer): Promise<Page> {
  return (await signInThroughPage(browser, stack.apiUrl, owner)).page;
}

it("links a traced job's page to its trace, and an untraced job's page to none", async () => {
  const owner = await listCustomer(stack, mail, 'growth');
  const [traced, untraced] = stack.providerWorld.world.samplePeople({}, 2);
  const ids: string[] = [];
  for (const person of [traced!, untraced!]) {
    const accepted = await stack.api.research(owner.key, { email: person.email });
    await stack.api.waitForEnd(owner.key, accepted.body.research_id);
    ids.push(accepted.body.research_id);
  }
  // The row as the API writes it when tracing is on: the request's traceparent (this stack's API runs with tracing off).
  const traceId = randomBytes(16).toString('hex');
  await stack.orm.em.fork().getConnection().execute('update research_job set trace_context = ? where id = ?', [`00-${traceId}-${randomBytes(8).toString('hex')}-01`, ids[0]]);

  const page = await signIn(owner);
  await page.goto(`/app/jobs/${ids[0]}`);
  await page.getByRole('heading', { name: `Job for ${traced!.email}`, level: 1 }).waitFor();
  const link = page.getByRole('link', { name: 'Trace of this job (opens in a new tab)' });
  await link.waitFor();
  expect(await link.getAttribute('href')).toBe(`http://traces.example.test/trace/${traceId}`);
  expect(await link.getAttribute('target')).toBe('_blank');
  expect(await seriousAccessibilityFindings(page)).toEqual([]);

  await page.goto(`/app/jobs/${ids[1]}`);
  await page.getByRole('heading', { name: `Job for ${untraced!.email}`, level: 1 }).waitFor();
  await page.getByText(ids[1]!).waitFor();
  expect(await page.getByRole('link', { name: /trace/i }).count()).toBe(0);
  expect(await seriousAccessibilityFindings(page)).toEqual([]);
  await page.context().close();
}, 180_000);
