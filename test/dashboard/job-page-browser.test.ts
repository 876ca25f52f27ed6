// The job page as a salesperson reads it, in Chromium: the prospect's picture comes from the stand-in (never from a
// real image host), the sources are named in words, every time says its zone, a place is said once, a job that is
// not there is asked for once, and the sidebar's border runs down the whole of a long page.
import { writeFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousAccessibilityFindings, ensureDashboardBuilt, launchChromium, signInThroughPage } from '../helpers/browser.ts';
import { listCustomer, type ListCustomer } from '../helpers/lists.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let browser: Browser;
let owner: ListCustomer;
let researchId: string;
const findings: Record<string, string[]> = {};

/** A person only Apollo knows, with a photo and posts: the job shows a picture, posts and decision makers. */
async function personWithPhoto(): Promise<string> {
  for (const person of stack.providerWorld.world.samplePeople({ knownTo: 'apollo', withPosts: true, companyKnownTo: 'both' }, 20)) {
    const reply = await fetch(`${stack.providerWorld.url}/apollo/api/v1/people/match?email=${encodeURIComponent(person.email)}`, { method: 'POST', headers: { 'x-api-key': 'k' } });
    const { person: found } = (await reply.json()) as { person: { photo_url: string | null } | null };
    if (found?.photo_url) return person.email;
  }
  throw new Error('no person with a photo in the sample');
}

beforeAll(async () => {
  await ensureDashboardBuilt();
  mail = await startTestMailSandbox();
  stack = await startTestStack({ apiEnv: { ...mail.env, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' } });
  browser = await launchChromium();
  owner = await listCustomer(stack, mail, 'scale');
  ({ research_id: researchId } = (await stack.api.research(owner.key, { email: await personWithPhoto() })).body);
  expect((await stack.api.waitForEnd(owner.key, researchId)).body.status).toBe('completed');
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await mail?.close();
});

function signedIn(viewport = { width: 1280, height: 800 }): Promise<{ context: BrowserContext; page: Page }> {
  return signInThroughPage(browser, stack.apiUrl, owner, viewport);
}

describe('the job page', () => {
  it('shows the prospect\'s picture from the stand-in, the sources in words, posts with their time zone, places once', async () => {
    const { context, page } = await signedIn();
    const outside: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.origin !== stack.apiUrl && url.origin !== stack.providerWorld.url) outside.push(request.url());
    });
    await page.goto(`/app/jobs/${researchId}`);
    await page.getByRole('heading', { name: 'Prospect', level: 2 }).waitFor({ timeout: 30_000 });

    const photo = page.getByRole('img', { name: /^Photo of / });
    await expect.poll(() => photo.evaluate((image) => (image as HTMLImageElement).complete && (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(await photo.getAttribute('src')).toMatch(new RegExp(`^${stack.providerWorld.url}/photos/`));
    expect(outside).toEqual([]);

    const provenance = await page.getByRole('region', { name: 'Where this data comes from' }).innerText();
    expect(provenance).toMatch(/Company: (fetched fresh from .*(Apollo|People Data Labs) company data|from stored data)/);
    expect(provenance).toContain('the local stand-ins, test data');
    // No internal id (`pdl.company`, `apollo.organization_enrich`, `social.company_posts`) and no bare `sandbox`.
    expect(provenance).not.toMatch(/\b[a-z]+\.[a-z_]+\b|\(sandbox\)/);

    const posts = page.getByText(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC( · reshared)?$/);
    await posts.first().waitFor();
    expect(await page.getByText(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/).count()).toBe(0);

    const locations = await page.getByRole('table', { name: 'Decision makers' }).getByRole('cell').allInnerTexts();
    expect(locations.length).toBeGreaterThan(0);
    for (const text of locations) {
      const parts = text.split(', ').map((part) => part.toLowerCase());
      expect(new Set(parts).size, text).toBe(parts.length);
    }
    findings['job-completed'] = await seriousAccessibilityFindings(page);
    await context.close();
  }, 90_000);

  it('an unknown id and another account\'s job are asked for once, then "Job not found"', async () => {
    const { context, page } = await signedIn();
    const stranger = await listCustomer(stack, mail, 'free');
    const { research_id: theirs } = (await stack.api.research(stranger.key, { email: 'someone@nowhere-corp.com' })).body;
    for (const id of ['res_unknown', theirs]) {
      let reads = 0;
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === `/app/api/jobs/${id}`) reads += 1;
      });
      await page.goto(`/app/jobs/${id}`);
      await page.getByRole('heading', { name: 'Job not found', level: 1 }).waitFor();
      // Long enough for the retries (a second each) and the live refresh (every second) the page used to make.
      await page.waitForTimeout(3_500);
      expect(reads, id).toBe(1);
    }
    findings['job-not-found'] = await seriousAccessibilityFindings(page);
    await context.close();
  }, 60_000);

  it('the sidebar\'s border runs from the header to the bottom of a long page, in a capture of the whole page too', async () => {
    const { context, page } = await signedIn({ width: 1280, height: 600 });
    await page.goto(`/app/jobs/${researchId}`);
    await page.getByRole('heading', { name: 'Decision makers', level: 2 }).waitFor({ timeout: 30_000 });
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeGreaterThan(1_200);
    const navigation = (await page.getByRole('navigation', { name: 'Main' }).boundingBox())!;
    const edge = Math.round(navigation.x + navigation.width) - 1;
    const header = 56;
    for (const scrolled of ['top', 'bottom'] as const) {
      if (scrolled === 'bottom') await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      const shot = await page.screenshot({ fullPage: true, animations: 'disabled' });
      writeFileSync(`/tmp/job-page-${scrolled}.png`, shot);
      // The column of pixels at the sidebar's edge, read back in the page: light grey all the way, no white gap.
      const gaps = await page.evaluate(async ({ png, x, from }) => {
        const image = new Image();
        image.src = `data:image/png;base64,${png}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context2d = canvas.getContext('2d')!;
        context2d.drawImage(image, 0, 0);
        const column = context2d.getImageData(x, 0, 1, image.height).data;
        const white: number[] = [];
        for (let y = from; y < image.height; y += 1) if (column[y * 4] === 255 && column[y * 4 + 1] === 255 && column[y * 4 + 2] === 255) white.push(y);
        return { white: white.length, first: white[0] ?? null, height: image.height };
      }, { png: shot.toString('base64'), x: edge, from: header + 1 });
      expect(gaps.height).toBeGreaterThanOrEqual(height);
      expect(gaps, scrolled).toMatchObject({ white: 0 });
    }
    findings['job-long-scrolled'] = await seriousAccessibilityFindings(page);
    await context.close();
  }, 60_000);

  it('has no accessibility finding in any of these states', () => {
    expect(Object.keys(findings)).toHaveLength(3);
    expect(findings).toEqual(Object.fromEntries(Object.keys(findings).map((name) => [name, []])));
  });
});
