import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';

// The preload the conformance suite runs under (scripts/lib/mcp-conformance-preload.ts):
// the API key on each of the suite's three ways to send a request, only to
// the server under test, and nothing sent off this machine.

const run = promisify(execFile);
const PRELOAD = new URL('../../scripts/lib/mcp-conformance-preload.ts', import.meta.url).pathname;
const SUITE_PACKAGE = new URL('../../node_modules/@modelcontextprotocol/conformance/package.json', import.meta.url).pathname;
let server: Server;
let target: string;

beforeAll(async () => {
  server = createServer((req, res) => res.end(JSON.stringify({ authorization: req.headers.authorization ?? null, host: req.headers.host })));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const script = (other: string) => `
import http from 'node:http';
import { createRequire } from 'node:module';
const { request } = createRequire(${JSON.stringify(SUITE_PACKAGE)})('undici');
const viaHttp = (url, headers = {}) => new Promise((resolve, reject) => {
  const u = new URL(url);
  http.request({ hostname: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers }, (res) => {
    let body = ''; res.on('data', (c) => (body += c)); res.on('end', () => resolve(JSON.parse(body)));
  }).on('error', reject).end();
});
const settle = (promise) => promise.then((value) => value, (error) => ({ refused: String(error.cause?.message ?? error.message) }));
const results = {
  fetch: await settle(fetch(${JSON.stringify('TARGET')}, { method: 'POST' }).then((r) => r.json())),
  undici: await settle(request(${JSON.stringify('TARGET')}, { method: 'POST', headers: { host: 'evil.example.com' } }).then((r) => r.body.json())),
  http: await settle(viaHttp(${JSON.stringify('TARGET')})),
  ownAuthorization: await settle(fetch(${JSON.stringify('TARGET')}, { headers: { authorization: 'Bearer scenario' } }).then((r) => r.json())),
  otherLoopback: await settle(fetch(${JSON.stringify(other)}).then((r) => r.json())),
  offlineFetch: await settle(fetch('http://example.com/')),
  offlineUndici: await settle(request('https://example.com/')),
  offlineHttp: await settle(viaHttp('http://example.com/')),
};
console.log(JSON.stringify(results));
`;

it('adds the key to fetch, undici and node:http requests for the server under test, keeps a scenario\'s own, and refuses the network', async () => {
  const other = new URL(target);
  other.port = String(Number(other.port) === 65535 ? 1 : Number(other.port) + 1);
  const env = { ...process.env, CONFORMANCE_TARGET_URL: target, CONFORMANCE_AUTHORIZATION: 'Bearer svc_live_test' };
  const { stdout } = await run(process.execPath, ['--import', PRELOAD, '--input-type=module', '-e', script(other.href).replaceAll('"TARGET"', JSON.stringify(target))], { env });
  const results = JSON.parse(stdout);
  expect(results.fetch.authorization).toBe('Bearer svc_live_test');
  expect(results.undici).toEqual({ authorization: 'Bearer svc_live_test', host: 'evil.example.com' });
  expect(results.http.authorization).toBe('Bearer svc_live_test');
  expect(results.ownAuthorization.authorization).toBe('Bearer scenario');
  // Another port on this machine is not refused by the guard (nothing listens there: the connection itself fails).
  expect(results.otherLoopback.refused).not.toMatch(/offline/);
  for (const name of ['offlineFetch', 'offlineUndici', 'offlineHttp']) expect(results[name].refused, name).toMatch(/conformance run is offline/);
});
