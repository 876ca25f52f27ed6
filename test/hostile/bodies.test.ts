import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { rawRequest } from './raw-http.ts';

// Hostile input on POST /research: nothing malformed is accepted,
// every refusal is a clean 4xx with a JSON error, and no refusal costs a credit.

let stack: TestStack;
let customer: { accountId: number; key: string };

beforeAll(async () => {
  // No worker: accepted jobs stay queued, which is all these tests need.
  stack = await startTestStack({ withWorker: false });
  customer = await stack.createCustomer('scale');
});
afterAll(() => stack?.stop());

const MIB = 1024 * 1024;

async function ledger(): Promise<{ used: number; jobs: number }> {
  const connection = stack.orm.em.fork().getConnection();
  const [account] = await connection.execute('select credits_used from account where id = ?', [customer.accountId]);
  const [jobs] = await connection.execute('select count(*)::int as n from research_job where account_id = ?', [customer.accountId]);
  return { used: account.credits_used, jobs: jobs.n };
}

function post(body: Buffer | string, headers: Record<string, string | number> = {}) {
  return rawRequest(stack.apiUrl, {
    method: 'POST',
    path: '/research',
    headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

/** A JSON body of `bytes` bytes whose e-mail is valid: only its size is wrong. */
function bigBody(bytes: number): Buffer {
  const head = '{"email":"big@nowhere-corp.com","prospect_name":"';
  return Buffer.from(head + 'x'.repeat(bytes - head.length - 2) + '"}');
}

describe('oversized bodies', () => {
  it.each([
    ['1 MiB with Content-Length', MIB],
    ['8 MiB with Content-Length', 8 * MIB],
    ['64 KiB + 1 byte', 64 * 1024 + 1],
  ])('%s: 413 payload_too_large, nothing consumed', async (_case, bytes) => {
    const before = await ledger();
    const reply = await post(bigBody(bytes));
    expect([reply.status, reply.body.error]).toEqual([413, 'payload_too_large']);
    expect(await ledger()).toEqual(before);
  });

  it('2 MiB streamed in chunks without Content-Length: 413 once the limit is passed, nothing consumed', async () => {
    const before = await ledger();
    const body = bigBody(2 * MIB);
    const chunks = Array.from({ length: 64 }, (_, index) => body.subarray(index * 32 * 1024, (index + 1) * 32 * 1024));
    const reply = await rawRequest(stack.apiUrl, {
      method: 'POST',
      path: '/research',
      headers: { authorization: `Bearer ${customer.key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks,
    });
    expect([reply.status, reply.body.error]).toEqual([413, 'payload_too_large']);
    expect(await ledger()).toEqual(before);
  });

  it('a Content-Length that claims more than is sent: 413 at once, and the connection is closed, not drained', async () => {
    // Raw socket: an HTTP client library would refuse to send a body shorter than its Content-Length.
    const { port, hostname } = new URL(stack.apiUrl);
    const socket = connect(Number(port), hostname);
    const started = Date.now();
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    const closed = once(socket, 'close');
    socket.write(
      `POST /research HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${customer.key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${2 * MIB}\r\n\r\n{"email":"a@nowhere-corp.com"}`,
    );
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    expect(text).toMatch(/\r\nconnection: close\r\n/i);
    expect(text).toContain('"error":"payload_too_large"');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('exactly 64 KiB is accepted', async () => {
    const reply = await post(bigBody(64 * 1024));
    expect(reply.status).toBe(400); // the 64 KiB hint is then too long, but the body was read
    expect(reply.body).toMatchObject({ error: 'invalid_request', field: 'prospect_name' });
  });
});

describe('bytes that are not valid UTF-8 JSON', () => {
  it.each([
    ['a lone continuation byte in the e-mail', Buffer.concat([Buffer.from('{"email":"a'), Buffer.from([0x80]), Buffer.from('@nowhere-corp.com"}')])],
    ['an overlong encoding of "@"', Buffer.concat([Buffer.from('{"email":"a'), Buffer.from([0xc0, 0x80]), Buffer.from('nowhere-corp.com"}')])],
    ['a truncated multi-byte sequence at the end', Buffer.concat([Buffer.from('{"email":"a@nowhere-corp.com"}'), Buffer.from([0xe2, 0x82])])],
    ['UTF-16 with a byte-order mark', Buffer.from('\ufeff{"email":"a@nowhere-corp.com"}', 'utf16le')],
    ['a surrogate half encoded in UTF-8 (CESU)', Buffer.concat([Buffer.from('{"email":"a'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('@nowhere-corp.com"}')])],
    ['NUL bytes', Buffer.from('{"email":"a@nowhere-corp.com"}\u0000\u0000')],
  ])('%s: 400 missing_email, nothing consumed', async (_case, bytes) => {
    const before = await ledger();
    const reply = await post(bytes);
    expect([reply.status, reply.body.error]).toEqual([400, 'missing_email']);
    expect(await ledger()).toEqual(before);
  });

  it('a JSON escape of a NUL inside the e-mail is an invalid address, not a server error', async () => {
    const reply = await post('{"email":"a\\u0000b@nowhere-corp.com"}');
    expect([reply.status, reply.body.error]).toEqual([400, 'invalid_email_format']);
  });

  it('a lone surrogate escape is an invalid address in the e-mail and an invalid hint elsewhere, not a server error', async () => {
    for (const email of ['\\ud800@nowhere-corp.com', 'a@nowhere-\\udfff.com']) {
      const reply = await post(`{"email":"${email}"}`);
      expect([reply.status, reply.body.error], email).toEqual([400, 'invalid_email_format']);
    }
    const hint = await post('{"email":"a@nowhere-corp.com","prospect_name":"Al\\ud83dice"}');
    expect([hint.status, hint.body.error, hint.body.field]).toEqual([400, 'invalid_request', 'prospect_name']);
  });

  it('deeply nested JSON is refused without a server error', async () => {
    const depth = 20_000;
    const reply = await post(`{"email":"a@nowhere-corp.com","x":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    expect(reply.status).toBeLessThan(500);
  });
});

describe('content types', () => {
  it.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/jsonx',
    'text/json-ish',
    'application/json\r\nX-Injected: 1'.replace(/\r\n/g, ' '),
  ])('%s: not JSON, so 400 missing_email (docs/decisions.md#error-bodies: no 415)', async (contentType) => {
    const before = await ledger();
    const reply = await post('{"email":"ct@nowhere-corp.com"}', { 'content-type': contentType });
    expect([reply.status, reply.body.error]).toEqual([400, 'missing_email']);
    expect(await ledger()).toEqual(before);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON;charset=UTF-8', 'application/problem+json'])(
    '%s is JSON: 202',
    async (contentType) => {
      const reply = await post(`{"email":"ct-${contentType.length}@nowhere-corp.com"}`, { 'content-type': contentType });
      expect(reply.status, reply.text).toBe(202);
    },
  );
});

describe('duplicate JSON keys', () => {
  it.each([
    ['email twice', '{"email":"first@nowhere-corp.com","email":"second@nowhere-corp.com"}', 'email'],
    ['a hint twice', '{"email":"dup@nowhere-corp.com","company_name":"A","company_name":"B"}', 'company_name'],
    ['a key spelt twice with an escape', '{"email":"dup@nowhere-corp.com","\\u0065mail":"other@nowhere-corp.com"}', 'email'],
    ['a nested duplicate', '{"email":"dup@nowhere-corp.com","extra":{"a":1,"a":2}}', 'extra.a'],
  ])('%s: 400 invalid_request naming the key, nothing consumed', async (_case, body, field) => {
    const before = await ledger();
    const reply = await post(body);
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_request', field });
    expect(await ledger()).toEqual(before);
  });

  it('the same key in sibling objects is not a duplicate', async () => {
    const reply = await post('{"email":"siblings@nowhere-corp.com","a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]}');
    expect(reply.status, reply.text).toBe(202);
  });
});

describe('e-mail addresses', () => {
  const local64 = 'l'.repeat(64);
  it.each([
    ['a 65-character local part', `${'l'.repeat(65)}@nowhere-corp.com`],
    ['255 characters in all', `${local64}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(58)}.com`],
    ['10,000 characters', `${'a'.repeat(10_000)}@nowhere-corp.com`],
    ['a 64-character domain label', `a@${'d'.repeat(64)}.com`],
    ['non-ASCII letters in the local part', 'zoë@nowhere-corp.com'],
    ['an emoji', '🙂@nowhere-corp.com'],
    ['a zero-width space', 'a\u200b@nowhere-corp.com'],
    ['a right-to-left override', 'a\u202e@nowhere-corp.com'],
    ['a CRLF and a header after it', 'a@nowhere-corp.com\r\nBcc: victim@example.com'],
    ['two addresses', 'a@nowhere-corp.com,b@nowhere-corp.com'],
    ['a display name', 'Alice <a@nowhere-corp.com>'],
  ])('%s: 400 invalid_email_format', async (_case, email) => {
    const reply = await post(JSON.stringify({ email }));
    expect([reply.status, reply.body.error]).toEqual([400, 'invalid_email_format']);
  });

  it('the longest valid address (254 characters) is accepted', async () => {
    const email = `${local64}@${'d'.repeat(63)}.${'d'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(email).toHaveLength(254);
    const reply = await post(JSON.stringify({ email }));
    expect(reply.status, reply.text).toBe(202);
  });

  it('an internationalised domain is accepted and stored in its ASCII form, so both spellings are one prospect', async () => {
    for (const [email, stored] of [
      ['anna@xn--mller-kva.de', 'anna@xn--mller-kva.de'],
      ['Anna@Müller.DE', 'anna@xn--mller-kva.de'],
      // A Cyrillic "о" makes another domain, not a spoof of the Latin one.
      ['a@nоwhere-corp.com', 'a@xn--nwhere-corp-rnj.com'],
    ]) {
      const reply = await post(JSON.stringify({ email }));
      expect(reply.status, reply.text).toBe(202);
      const [job] = await stack.orm.em.fork().getConnection().execute('select email from research_job where id = ?', [reply.body.research_id]);
      expect(job.email, email).toBe(stored);
    }
  });
});

describe('header injection through hints', () => {
  it.each([
    ['prospect_name', 'Alice\r\nX-Injected: 1'],
    ['company_name', 'Acme\nSet-Cookie: a=b'],
    ['social_url', 'https://social.example/in/a\rLocation: https://evil.example'],
    ['company_social_url', 'https://social.example/company/a\u0000'],
    ['prospect_name', 'Alice\u0085Bob'],
    ['company_name', 'Acme\u2028Evil'],
    ['company_name', 'Acme\u2029Evil'],
    ['prospect_name', 'Alice\u001b[31mred'],
  ])('%s with %j: 400 invalid_request naming the field', async (field, value) => {
    const before = await ledger();
    const reply = await post(JSON.stringify({ email: 'hints@nowhere-corp.com', [field]: value }));
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_request', field });
    expect(await ledger()).toEqual(before);
  });

  it.each([['a space', 'a b'], ['empty', ''], ['256 characters', 'k'.repeat(256)]])('an Idempotency-Key with %s is refused', async (_case, value) => {
    const before = await ledger();
    const reply = await post('{"email":"idem@nowhere-corp.com"}', { 'idempotency-key': value });
    expect([reply.status, reply.body.error, reply.body.field]).toEqual([400, 'invalid_request', 'Idempotency-Key']);
    expect(await ledger()).toEqual(before);
  });
});

describe('?wait on the status endpoint', () => {
  it.each(['', '-1', '1.5', '1e1', ' 5', '0x10', 'abc'])('wait=%j is 400 invalid_request naming wait', async (value) => {
    const reply = await rawRequest(stack.apiUrl, {
      method: 'GET',
      path: `/research-status/res_x?wait=${encodeURIComponent(value)}`,
      headers: { authorization: `Bearer ${customer.key}` },
    });
    expect([reply.status, reply.body.error, reply.body.field]).toEqual([400, 'invalid_request', 'wait']);
  });

  it('wait given twice is refused; a huge wait counts as 25 and an unknown id still answers 404 at once', async () => {
    const get = (query: string) => rawRequest(stack.apiUrl, { method: 'GET', path: `/research-status/res_x?${query}`, headers: { authorization: `Bearer ${customer.key}` } });
    expect((await get('wait=1&wait=2')).body).toMatchObject({ error: 'invalid_request', field: 'wait' });
    const started = Date.now();
    expect((await get('wait=99999999999999999999')).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
