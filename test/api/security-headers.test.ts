import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapApi, type ApiHandle } from '../../api/server.ts';
import { DASHBOARD_DIST } from '../../api/dashboard/config.ts';
import { ensureDashboardBuilt } from '../helpers/browser.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// The headers every reply carries, JSON and pages alike (docs/security.md#headers):
// an API on http (development, no HSTS) and one whose PUBLIC_URL is https.
let stack: TestStack;
let httpsApi: ApiHandle;

beforeAll(async () => {
  await ensureDashboardBuilt();
  stack = await startTestStack({ withWorker: false, apiEnv: { DASHBOARD_MODE: 'dist' } });
  httpsApi = await bootstrapApi(stack.config, stack.logger, stack.clock.now, { ...process.env, DASHBOARD_MODE: 'dist', PUBLIC_URL: 'https://enrich.example.com' });
}, 180_000);

afterAll(async () => {
  await httpsApi?.close();
  await stack?.stop();
});

const asset = () => readdirSync(`${DASHBOARD_DIST}/assets`).find((name) => name.endsWith('.js'))!;

/** A JSON reply of each kind, a redirect, an asset and a page. */
const REQUESTS: Array<[string, RequestInit?]> = [
  ['/healthz'],
  ['/openapi.json'],
  ['/research', { method: 'POST', body: '{}' }],
  ['/research-status/res_unknown'],
  ['/no-such-endpoint'],
  ['/app/api/me'],
  ['/app'],
  ['/app/sign-in'],
];

async function headersOf(baseUrl: string): Promise<Array<{ path: string; status: number; headers: Headers }>> {
  const replies = [];
  for (const [path, init] of [...REQUESTS, [`/app/assets/${asset()}`] as [string]]) {
    const reply = await fetch(`${baseUrl}${path}`, { redirect: 'manual', ...init });
    await reply.arrayBuffer();
    replies.push({ path, status: reply.status, headers: reply.headers });
  }
  return replies;
}

function expectSecurityHeaders(replies: Awaited<ReturnType<typeof headersOf>>): void {
  for (const { path, headers } of replies) {
    expect(headers.get('x-content-type-options'), path).toBe('nosniff');
    expect(headers.get('x-frame-options'), path).toBe('DENY');
    expect(headers.get('referrer-policy'), path).toBe('strict-origin');
    expect(headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
  }
}

describe('security headers', () => {
  it('on every reply of an API on http, without HSTS', async () => {
    const replies = await headersOf(stack.apiUrl);
    expect(replies.map(({ path, status }) => `${path} ${status}`)).toEqual([
      '/healthz 200',
      '/openapi.json 200',
      '/research 401',
      '/research-status/res_unknown 401',
      '/no-such-endpoint 404',
      '/app/api/me 401',
      '/app 302',
      '/app/sign-in 200',
      `/app/assets/${asset()} 200`,
    ]);
    expectSecurityHeaders(replies);
    for (const { path, headers } of replies) expect(headers.get('strict-transport-security'), path).toBeNull();
    // JSON loads nothing; a page its own files, the prospects' photos over http too here.
    expect(replies[0]!.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(replies.find(({ path }) => path === '/app/sign-in')!.headers.get('content-security-policy')).toContain("img-src 'self' data: https: http:;");
  });

  it('with HSTS where PUBLIC_URL is https, and images only over https', async () => {
    const replies = await headersOf(httpsApi.url);
    expectSecurityHeaders(replies);
    for (const { path, headers } of replies) expect(headers.get('strict-transport-security'), path).toBe('max-age=31536000');
    expect(replies.find(({ path }) => path === '/app/sign-in')!.headers.get('content-security-policy')).toContain("img-src 'self' data: https:;");
  });

  it("puts a fresh nonce in each page, in the policy and in the page's tags", async () => {
    const nonces = [];
    for (let i = 0; i < 2; i++) {
      const reply = await fetch(`${stack.apiUrl}/app/jobs`);
      const nonce = /'nonce-([^']+)'/.exec(reply.headers.get('content-security-policy')!)![1]!;
      const page = await reply.text();
      expect(page).toContain(`<meta property="csp-nonce" nonce="${nonce}">`);
      expect(page).not.toContain('CSP_NONCE_PLACEHOLDER');
      expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
      nonces.push(nonce);
    }
    expect(nonces[0]).not.toBe(nonces[1]);
  });
});
