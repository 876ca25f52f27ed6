// The one guard every server-side fetch of a user-given address goes through
// (integrations/web/outbound-guard.ts), tried as an attacker would: address
// forms that smuggle loopback past a naive check, a name that resolves to
// loopback only when the connection is made, the product-page fetch in
// production with no model configured, and whether an open port can be told
// from a closed one by the error. Needs no database: TEST_SERVICES=none works.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProductContextDrafter } from '../../api/dashboard/product-drafts.ts';
import { postChatMessage } from '../../integrations/chat/slack-webhook.ts';
import { assertResolvesPublicly, enteredHost, loadOutboundPolicy, type OutboundPolicy } from '../../integrations/web/outbound-guard.ts';
import { createPageFetcher } from '../../integrations/web/page-fetcher.ts';
import { isPrivateAddress } from '../../integrations/web/private-address.ts';
import { NO_ANSWER_REASON, postWebhook } from '../../integrations/webhooks/webhook-poster.ts';
import { createLogger } from '../../lib/logger.ts';

const PAGE = '<html><head><title>Internal admin</title></head><body>secret</body></html>';
let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const strict: OutboundPolicy = { allowedPrivateHosts: new Set() };
const failureOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error as Error & { reason?: string });

describe('address forms that carry loopback', () => {
  it.each([
    ['[::127.0.0.1]'], // IPv4-compatible ::/96
    ['[2002:7f00:1::1]'], // 6to4 around 127.0.0.1
    ['[::ffff:127.0.0.1]'], // IPv4-mapped
    ['[64:ff9b::7f00:1]'], // NAT64 around 127.0.0.1
    ['2130706433'], // 127.0.0.1 as one decimal number
    ['0177.0.0.1'], // octal
    ['0x7f.1'], // hexadecimal, shortened
  ])('%s is refused before any connection, quoted as entered', async (host) => {
    const before = hits;
    const failure = await failureOf(createPageFetcher({ policy: strict })(`http://${host}:${port}/admin`));
    expect(failure).toMatchObject({ name: 'PageFetchRefused', reason: 'private_address' });
    expect(failure!.message).toBe(`${host} is a private, loopback or reserved address, which we never contact.`);
    expect(hits).toBe(before);
  });

  it('classifies the ranges, judging an embedded IPv4 address by itself', () => {
    const refused = [
      '127.0.0.1', '10.0.0.1', '172.16.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '240.0.0.1', '192.0.2.1',
      '::', '::1', '::7f00:1', '::ffff:7f00:1', '::ffff:10.0.0.1', '2002:7f00:1::1', '2002:a00:1::1', '64:ff9b::a00:1', '64:ff9b:1::808:808',
      'fc00::1', 'fd12::1', 'fe80::1', 'ff02::1', '2001:db8::1', '2001::1', 'fec0::1', '100::1', 'not an address',
    ];
    const allowed = ['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1', '64:ff9b::808:808'];
    expect(refused.filter((address) => !isPrivateAddress(address))).toEqual([]);
    expect(allowed.filter(isPrivateAddress)).toEqual([]);
  });

  it('reads the host as it was typed', () => {
    expect(enteredHost('http://[::ffff:127.0.0.1]:8080/x')).toBe('[::ffff:127.0.0.1]');
    expect(enteredHost('https://user:pw@0177.0.0.1/x')).toBe('0177.0.0.1');
    expect(enteredHost('https://Hooks.Example.com/x')).toBe('Hooks.Example.com');
  });
});

describe('a name that resolves to loopback', () => {
  // The attacker's DNS answers a public address when the URL is saved and loopback when it is used.
  const rebinding = (): OutboundPolicy & { calls: () => number } => {
    let calls = 0;
    return {
      allowedPrivateHosts: loadOutboundPolicy({ NODE_ENV: 'production' }).allowedPrivateHosts,
      resolve: async () => (calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]),
      calls: () => calls,
    };
  };

  it('is refused in production at connect time, after a check that passed', async () => {
    const policy = rebinding();
    const entered = `http://Rebind.Example:${port}/admin`;
    await assertResolvesPublicly(new URL(entered), entered, policy);
    const before = hits;
    const failure = await failureOf(createPageFetcher({ policy })(entered));
    expect(failure).toMatchObject({ name: 'PageFetchRefused', reason: 'private_address', message: 'Rebind.Example resolves to a private, loopback or reserved address, which we never contact.' });
    expect(policy.calls()).toBe(2); // the connection asked the resolver itself
    expect(hits).toBe(before);
  });

  it('is refused for webhook deliveries and chat webhooks the same way', async () => {
    const before = hits;
    const webhook = rebinding();
    await webhook.resolve!('rebind.example');
    expect(await postWebhook(`https://rebind.example:${port}/hook`, {}, '{}', webhook)).toMatchObject({ kind: 'refused', reason: 'rebind.example resolves to a private, loopback or reserved address, which we never contact.' });
    const chat = rebinding();
    await chat.resolve!('rebind.example');
    expect(await postChatMessage(`https://rebind.example:${port}/services/T/B/x`, { text: 'hi', blocks: [] }, chat)).toMatchObject({ outcome: 'refused', status: 0 });
    expect(hits).toBe(before);
  });

  it('reaches it only when ALLOW_PRIVATE_HOSTS names the host, which production refuses', async () => {
    expect(() => loadOutboundPolicy({ NODE_ENV: 'production', ALLOW_PRIVATE_HOSTS: '127.0.0.1' })).toThrow(/development and tests only/);
    const page = await createPageFetcher({ policy: loadOutboundPolicy({ ALLOW_PRIVATE_HOSTS: '127.0.0.1' }) })(`http://127.0.0.1:${port}/`);
    expect(page.body).toBe(PAGE);
  });
});

describe('the product page at key creation, in production with no model configured', () => {
  const drafter = createProductContextDrafter({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(40) }, createLogger('test', 'silent'));

  it('refuses a private page instead of drafting the product from it', async () => {
    const before = hits;
    const failure = await failureOf(drafter(`http://127.0.0.1:${port}/admin`));
    expect(failure).toMatchObject({ code: 'product_page_unreadable' });
    expect(failure!.message).toBe('127.0.0.1 is a private, loopback or reserved address, which we never contact. Fill in the fields by hand.');
    expect(hits).toBe(before);
  });

  it('answers an open and a closed private port alike', async () => {
    const closed = await closedPort();
    const [open, shut] = await Promise.all([failureOf(drafter(`http://127.0.0.1:${port}/`)), failureOf(drafter(`http://127.0.0.1:${closed}/`))]);
    expect(open!.message).toBe(shut!.message);
  });
});

describe('no port scanning where private hosts are allowed', () => {
  const allowed: OutboundPolicy = { allowedPrivateHosts: new Set(['127.0.0.1']) };

  it('gives one reason and one text for a closed port, a reset and a silent one', async () => {
    const resetting = await listening((socket) => socket.destroy());
    const silent = await listening(() => {});
    try {
      const fetchPage = createPageFetcher({ policy: allowed, timeoutMs: 300 });
      const failures = await Promise.all([await closedPort(), resetting.port, silent.port].map((each) => failureOf(fetchPage(`http://127.0.0.1:${each}/`))));
      const shapes = failures.map((failure) => ({ name: failure!.name, reason: failure!.reason, message: failure!.message.replace(/:\d+\//, ':PORT/') }));
      expect(shapes).toEqual(Array(3).fill({ name: 'PageFetchFailed', reason: 'unreachable', message: 'http://127.0.0.1:PORT/ could not be reached (no answer, or the connection was refused or dropped).' }));
      const attempts = await Promise.all([await closedPort(), resetting.port, silent.port].map((each) => postWebhook(`http://127.0.0.1:${each}/`, {}, '{}', { ...allowed, timeoutMs: 300 })));
      expect(attempts.map((attempt) => ({ kind: attempt.kind, reason: 'reason' in attempt ? attempt.reason : null }))).toEqual(Array(3).fill({ kind: 'network', reason: NO_ANSWER_REASON }));
    } finally {
      await Promise.all([resetting.close(), silent.close()]);
    }
  });
});

async function closedPort(): Promise<number> {
  const probe = await listening(() => {});
  await probe.close();
  return probe.port;
}

async function listening(onConnection: (socket: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const { createServer: createTcpServer } = await import('node:net');
  const tcp = createTcpServer((socket) => {
    sockets.add(socket);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  return {
    port: (tcp.address() as AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => tcp.close(() => resolve()));
    },
  };
}
