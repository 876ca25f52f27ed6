import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { launchChromium, seriousAccessibilityFindings } from '../helpers/browser.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// What Vite's dev server (DASHBOARD_MODE=dev, as `npm run dev` runs the API)
// hands out by absolute path: the dashboard's files, never the rest of the checkout.
let stack: TestStack;
const probeDir = join(ROOT, '.data', `fs-probe-${randomBytes(4).toString('hex')}`);
const PROBE_TEXT = `session-token-${randomBytes(8).toString('hex')}`;
// What api/dashboard/config.ts holds: the development AUTH_SECRET.
const DEVELOPMENT_SECRET = 'development-only-secret-never-used-in-production';

beforeAll(async () => {
  mkdirSync(probeDir, { recursive: true });
  writeFileSync(join(probeDir, 'session.txt'), PROBE_TEXT);
  stack = await startTestStack({ withWorker: false, apiEnv: { DASHBOARD_MODE: 'dev' } });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  rmSync(probeDir, { recursive: true, force: true });
});

/** The path exactly as written (no `..` or `%2e` folded away by a URL parser), as an attacker sends it. */
function get(path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(stack.apiUrl);
    request({ host: url.hostname, port: url.port, path, method: 'GET' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe("the dev server's files", () => {
  it("serves the dashboard's own files and the shared domain code it imports, under a policy no one may frame", async () => {
    const page = await fetch(`${stack.apiUrl}/app/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect((await get('/app/src/main.tsx')).status).toBe(200);
    expect((await get(`/app/@fs${ROOT}/domain/plans.ts`)).status).toBe(200);
  }, 120_000);

  it('is enough for the dashboard: the sign-in page runs in a browser', async () => {
    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext({ baseURL: stack.apiUrl })).newPage();
      const refused: string[] = [];
      page.on('response', (response) => void (response.status() >= 400 && refused.push(`${response.status()} ${response.url()}`)));
      await page.goto('/app/sign-in');
      await page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 90_000 });
      expect(refused).toEqual([]);
      expect(await seriousAccessibilityFindings(page)).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 150_000);

  it('refuses .data/, api/ source (also ?raw), the checkout root and anything outside it', async () => {
    const refused = [
      `/app/@fs${probeDir}/session.txt`,
      `/app/@fs${probeDir}/session.txt?raw`,
      `/app/@fs${ROOT}/api/dashboard/config.ts`,
      `/app/@fs${ROOT}/api/dashboard/config.ts?raw`,
      `/app/@fs${ROOT}/api/dashboard/config.ts?import&raw`,
      `/app/@fs${ROOT}/api/dashboard/config.ts?raw??`,
      `/app/@fs${ROOT}/dashboard/../api/dashboard/config.ts?raw`,
      `/app/@fs${ROOT}/domain/../api/dashboard/config.ts?raw`,
      `/app/@fs${ROOT}/package.json`,
      '/app/@fs/etc/passwd',
      '/app/@fs/etc/passwd?raw',
    ];
    const replies = [];
    for (const path of refused) replies.push({ path, ...(await get(path)) });
    for (const { path, status, body } of replies) {
      expect(body, path).not.toContain(PROBE_TEXT);
      expect(body, path).not.toContain(DEVELOPMENT_SECRET);
      expect(body, path).not.toMatch(/root:x:0:0/);
      expect([403, 404], `${path} answered ${status}`).toContain(status);
    }
    // The plain ones are refused outright, not missed.
    expect(replies.filter(({ status }) => status === 403).map(({ path }) => path)).toEqual(expect.arrayContaining(refused.filter((path) => !path.includes('..'))));
  }, 120_000);
});
