import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZAccepted, ZCompletedStatus, ZRunningStatus } from '../../domain/research/reply.ts';
import { personPosts } from '../../sandbox/provider-world/posts-and-news.ts';
import { revokeApiKey } from '../../services/accounts/api-keys.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let customer: { accountId: number; key: string; keyId: number };

beforeAll(async () => {
  stack = await startTestStack();
  customer = await stack.createCustomer('growth');
});
afterAll(() => stack?.stop());

describe('authentication, in the order of docs/decisions.md#the-order-of-checks', () => {
  it('401 missing_api_key without an Authorization header, on both endpoints', async () => {
    for (const reply of [await stack.api.post('/research', { email: 'a@b.co' }), await stack.api.get('/research-status/res_x')]) {
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe('missing_api_key');
    }
  });

  it('400 missing_key_id when no token follows Bearer', async () => {
    for (const header of ['Bearer', 'Bearer   ', 'Basic']) {
      const reply = await stack.api.post('/research', { email: 'a@b.co' }, { headers: { authorization: header } });
      expect(reply.status, header).toBe(400);
      expect(reply.body.error).toBe('missing_key_id');
    }
  });

  it('401 invalid_key for unknown and malformed keys, before any body check', async () => {
    for (const key of ['svc_live_' + 'x'.repeat(42), 'not-a-key', 'svc_live_short']) {
      const reply = await stack.api.post('/research', 'not json', { key });
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({ error: 'invalid_key' });
    }
  });

  it('400 api_key_has_no_product for a key without product context, before the body is read', async () => {
    const { key } = await stack.createKey(customer.accountId, null);
    const reply = await stack.api.research(key, {});
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('api_key_has_no_product');
  });

  it('revocation is immediate: the next request gets 401 invalid_key on both endpoints', async () => {
    const { key, keyId } = await stack.createKey(customer.accountId);
    const accepted = await stack.api.research(key, { email: 'someone@nowhere-corp.com' });
    expect(accepted.status).toBe(202);
    await revokeApiKey(stack.orm.em.fork(), keyId, new Date());
    const post = await stack.api.research(key, { email: 'someone@nowhere-corp.com' });
    const get = await stack.api.status(key, accepted.body.research_id);
    expect([post.status, post.body.error, get.status, get.body.error]).toEqual([401, 'invalid_key', 401, 'invalid_key']);
  });
});

describe('request validation', () => {
  it.each([
    ['no body', undefined],
    ['not JSON', '{"email": '],
    ['an array', '[]'],
    ['email absent', '{}'],
    ['email not a string', '{"email": 42}'],
    ['email empty', '{"email": "  "}'],
  ])('400 missing_email for %s', async (_case, rawBody) => {
    const reply = await stack.api.post('/research', null, { key: customer.key, rawBody: rawBody ?? '' });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('missing_email');
  });

  it.each(['plainaddress', 'a@b', 'a@@b.com', '"quoted"@example.com', 'a@[127.0.0.1]', `${'x'.repeat(250)}@example.com`, 'ünï@exämple.com'])(
    '400 invalid_email_format for %s',
    async (email) => {
      const reply = await stack.api.research(customer.key, { email });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe('invalid_email_format');
    },
  );

  it('400 invalid_request naming a hint that is not a string', async () => {
    const reply = await stack.api.research(customer.key, { email: 'a@example.com', company_name: 7 });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: 'invalid_request', field: 'company_name' });
  });

  it('413 payload_too_large above 64 KiB', async () => {
    const big = await stack.api.research(customer.key, { email: 'a@example.com', prospect_name: 'x'.repeat(70 * 1024) });
    expect([big.status, big.body.error]).toEqual([413, 'payload_too_large']);
  });

  it('a body that is not JSON is 400 missing_email, whatever its type (docs/decisions.md#error-bodies: no 415)', async () => {
    // As `curl -d 'email=a@example.com'` sends it.
    const form = await stack.api.post('/research', null, {
      key: customer.key,
      rawBody: 'email=a@example.com',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect([form.status, form.body.error]).toEqual([400, 'missing_email']);
    expect(form.body.message).toMatch(/JSON/);
    const text = await stack.api.post('/research', null, { key: customer.key, rawBody: 'email=a@example.com', headers: { 'content-type': 'text/plain' } });
    expect([text.status, text.body.error]).toEqual([400, 'missing_email']);
  });

  it('no rejected request consumes a credit', async () => {
    const before = await creditsUsed(customer.accountId);
    await stack.api.research(customer.key, { email: 'bad' });
    await stack.api.research(customer.key, {});
    expect(await creditsUsed(customer.accountId)).toBe(before);
  });
});

describe('a research job end to end', () => {
  it('202 processing, then queued/processing, then completed with the full shape', async () => {
    const person = samplePerson(stack, { knownTo: 'both', withPosts: true });
    const accepted = await stack.api.research(customer.key, { email: `  ${person.email.toUpperCase()} ` });
    expect(accepted.status).toBe(202);
    const body = ZAccepted.parse(accepted.body);
    expect(body.research_id).toMatch(/^res_[0-9A-Za-z]{24}$/);

    const early = await stack.api.status(customer.key, body.research_id);
    if (early.body.status !== 'completed') ZRunningStatus.parse(early.body);

    const done = await stack.api.waitForEnd(customer.key, body.research_id);
    const completed = ZCompletedStatus.parse(done.body);
    expect(completed.completed_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
    expect(completed.data.prospect).toMatchObject({ email: person.email, name: person.fullName });
    expect(completed.data.company?.name).toBeTruthy();
    expect(completed.data.decision_makers.length).toBeGreaterThan(0);
    expect(completed._meta?.prospect).toMatchObject({ from_cache: false, source: 'sandbox' });
    // Posts from Social Fetch's profile-posts listing: the newest three, reposts marked.
    const worldPosts = personPosts(stack.providerWorld.world, person).slice(0, 3);
    expect(completed.data.prospect?.posts?.map((post) => [post.post_url, post.reshared])).toEqual(worldPosts.map((post) => [post.url, post.reshared]));
  });

  it('404 not_found for unknown, malformed and other accounts\' ids, with the same body', async () => {
    const other = await stack.createCustomer('growth');
    const accepted = await stack.api.research(other.key, { email: 'x.y@nowhere-corp.com' });
    const replies = await Promise.all(
      [accepted.body.research_id, 'res_' + 'A'.repeat(24), 'nonsense', 'res_%27%20or%201=1'].map((id) => stack.api.status(customer.key, id)),
    );
    for (const reply of replies) expect([reply.status, reply.body]).toEqual([404, replies[0].body]);
    expect(replies[0].body.error).toBe('not_found');
  });
});

describe('status polls of a completed job', () => {
  it('revoking a key stops its polls of a completed job the API already holds', async () => {
    const { key, keyId } = await stack.createKey(customer.accountId);
    const accepted = await stack.api.research(key, { email: samplePerson(stack, { knownTo: 'both' }, 4).email });
    const completed = await stack.api.waitForEnd(key, accepted.body.research_id);
    for (let poll = 0; poll < 3; poll += 1) expect((await stack.api.status(key, accepted.body.research_id)).body).toEqual(completed.body);
    await revokeApiKey(stack.orm.em.fork(), keyId, new Date());
    const after = await stack.api.status(key, accepted.body.research_id);
    expect([after.status, after.body.error]).toEqual([401, 'invalid_key']);
  });
});

describe('Idempotency-Key', () => {
  it('the same key and body return the first job and take no new credit; another body is 409', async () => {
    const headers = { 'idempotency-key': `order-${Date.now()}` };
    const first = await stack.api.research(customer.key, { email: 'repeat@nowhere-corp.com' }, headers);
    const used = await creditsUsed(customer.accountId);
    const again = await stack.api.research(customer.key, { email: 'REPEAT@nowhere-corp.com' }, headers);
    expect(again.status).toBe(202);
    expect(again.body.research_id).toBe(first.body.research_id);
    expect(await creditsUsed(customer.accountId)).toBe(used);
    const conflict = await stack.api.research(customer.key, { email: 'other@nowhere-corp.com' }, headers);
    expect([conflict.status, conflict.body.error]).toEqual([409, 'idempotency_key_reused']);
  });

  it('concurrent requests with one key create one job', async () => {
    const headers = { 'idempotency-key': `burst-${Date.now()}` };
    const replies = await Promise.all(Array.from({ length: 8 }, () => stack.api.research(customer.key, { email: 'burst@nowhere-corp.com' }, headers)));
    expect(new Set(replies.map((reply) => reply.body.research_id)).size).toBe(1);
    expect(replies.every((reply) => reply.status === 202)).toBe(true);
  });
});

describe('extensions', () => {
  it('GET /openapi.json describes both endpoints', async () => {
    const reply = await stack.api.get('/openapi.json');
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body.paths)).toEqual(['/research', '/research-status/{research_id}']);
  });

  it('GET /healthz is 200 with PostgreSQL and Temporal reachable', async () => {
    const reply = await stack.api.get('/healthz');
    expect(reply).toMatchObject({ status: 200, body: { status: 'ok', postgres: 'ok', temporal: 'ok' } });
  });

  it('?wait rejects nonsense', async () => {
    const reply = await stack.api.get('/research-status/res_x?wait=abc', { key: customer.key });
    expect([reply.status, reply.body.error]).toEqual([400, 'invalid_request']);
  });
});

async function creditsUsed(accountId: number): Promise<number> {
  const rows = await stack.orm.em.fork().getConnection().execute('select credits_used from account where id = ?', [accountId]);
  return rows[0].credits_used;
}
