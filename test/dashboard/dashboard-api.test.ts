import { getMigrations } from 'better-auth/db/migration';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDashboardAuth, dashboardAuthOptions, type AccountLink } from '../../api/dashboard/auth.ts';
import { loadDashboardConfig } from '../../api/dashboard/config.ts';
import { createMailer } from '../../integrations/mail/mailer.ts';
import { createLogger } from '../../lib/logger.ts';
import { createAccount } from '../../services/accounts/accounts.ts';
import { Account } from '../../db/entities/index.ts';
import { DashboardClient, linkIn } from '../../scripts/lib/dashboard-client.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let alice: DashboardClient;
let bob: DashboardClient;
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${Date.now()}-${counter++}@example.com`;
// better-auth alone, without our accounts behind it: for checks of its own behaviour.
const NO_ACCOUNTS: AccountLink = { linkOwner: async () => undefined, hasUnclaimedAccount: async () => false, isSignInRefused: async () => false, isAccountEmail: async () => false, followOwnerEmail: async () => undefined };
const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };

beforeAll(async () => {
  mail = await startTestMailSandbox();
  // The proxy header lets one test play many clients; without it the socket address is the client.
  stack = await startTestStack({ apiEnv: { ...mail.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
  alice = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, uniqueEmail('alice'));
  bob = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, uniqueEmail('bob'));
});

afterAll(async () => {
  await stack?.stop();
  await mail?.close();
});

describe('accounts', () => {
  it('sign-up makes a Free account, verified by the e-mailed link, which signs the owner in', async () => {
    const me = await alice.get('/app/api/me');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ emailVerified: true, plan: { name: 'free' }, language: 'en', credits: { credit_limit: 3, credits_used: 0 } });
  });

  it('refuses sign-in before the address is verified, and sends the link again', async () => {
    const email = uniqueEmail('unverified');
    const client = new DashboardClient(stack.apiUrl);
    await client.post('/app/api/auth/sign-up/email', { email, password: 'long enough password', name: email });
    const signIn = await client.post('/app/api/auth/sign-in/email', { email, password: 'long enough password' });
    expect(signIn.status).toBe(403);
    expect(signIn.body.error).toBe('email_not_verified');
    expect((await client.get('/app/api/me')).status).toBe(401);
    await expect.poll(() => mail.sandbox.messages(email).length).toBe(2);
  });

  it('sets the session cookie HttpOnly and SameSite', async () => {
    const client = new DashboardClient(stack.apiUrl);
    const email = uniqueEmail('cookie');
    await client.signUpAndVerify(mail, email);
    const signIn = await client.post('/app/api/auth/sign-in/email', { email, password: 'correct horse battery' });
    const cookie = signIn.headers.getSetCookie().find((line) => line.includes('session_token'));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it('marks the session cookie Secure when the dashboard is served over https', async () => {
    const pool = new pg.Pool({ connectionString: stack.config.databaseUrl, max: 1 });
    const origin = 'https://app.example.test';
    const auth = createDashboardAuth({
      pool,
      config: loadDashboardConfig({ PUBLIC_URL: origin }, stack.apiUrl),
      mailer: createMailer(mail.config),
      accounts: NO_ACCOUNTS,
      logger: createLogger('test', 'silent'),
    });
    const email = uniqueEmail('https');
    const call = (path: string, body: unknown) =>
      auth.handler(new Request(`${origin}/app/api/auth${path}`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify(body) }));
    try {
      expect((await call('/sign-up/email', { email, password: 'secure cookie passphrase', name: email })).status).toBe(200);
      await pool.query('update auth_user set "emailVerified" = true where email = $1', [email]);
      const signIn = await call('/sign-in/email', { email, password: 'secure cookie passphrase' });
      const cookie = signIn.headers.getSetCookie().find((line) => line.includes('session_token'));
      expect(cookie).toMatch(/; Secure/i);
      expect(cookie).toMatch(/HttpOnly/i);
    } finally {
      await pool.end();
    }
  });

  it('rejects passwords under 12 characters', async () => {
    const reply = await new DashboardClient(stack.apiUrl).post('/app/api/auth/sign-up/email', { email: uniqueEmail('short'), password: 'too short', name: 'x' });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('password_too_short');
  });

  it('a password reset by e-mailed link ends every other session', async () => {
    const email = uniqueEmail('reset');
    const first = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email);
    const other = new DashboardClient(stack.apiUrl);
    const reset = await other.post('/app/api/auth/request-password-reset', { email, redirectTo: '/app/reset-password' });
    expect(reset.status).toBe(200);
    const message = await mail.waitForMessage(email, (m) => /password/i.test(m.subject));
    const opened = await other.get(linkIn(message.text));
    const token = new URL(opened.headers.get('location')!, stack.apiUrl).searchParams.get('token');
    expect(token).toBeTruthy();
    expect((await other.post('/app/api/auth/reset-password', { token, newPassword: 'a brand new passphrase' })).status).toBe(200);
    expect((await first.get('/app/api/me')).status).toBe(401);
    expect((await other.post('/app/api/auth/sign-in/email', { email, password: 'a brand new passphrase' })).status).toBe(200);
    expect((await other.get('/app/api/me')).status).toBe(200);
  });

  it('an account made with the admin command is claimed through a password reset, keys and credits included', async () => {
    const email = uniqueEmail('operator-made');
    const account = await createAccount(stack.orm.em.fork(), { ownerEmail: email, plan: 'growth', language: 'de' }, new Date());
    await stack.createKey(account.id);
    const client = new DashboardClient(stack.apiUrl);
    await client.post('/app/api/auth/request-password-reset', { email, redirectTo: '/app/reset-password' });
    const opened = await client.get(linkIn((await mail.waitForMessage(email, (m) => /password/i.test(m.subject))).text));
    const token = new URL(opened.headers.get('location')!, stack.apiUrl).searchParams.get('token');
    expect((await client.post('/app/api/auth/reset-password', { token, newPassword: 'operator made passphrase' })).status).toBe(200);
    expect((await client.post('/app/api/auth/sign-in/email', { email, password: 'operator made passphrase' })).status).toBe(200);
    const me = await client.get('/app/api/me');
    expect(me.body).toMatchObject({ accountId: account.id, plan: { name: 'growth' }, language: 'de' });
    expect((await client.get('/app/api/keys')).body.keys).toHaveLength(1);
  });

  it('limits sign-in attempts per e-mail address across many clients', async () => {
    const email = uniqueEmail('target');
    await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt++) {
      const client = new DashboardClient(stack.apiUrl);
      const reply = await client.call('POST', '/app/api/auth/sign-in/email', { email, password: 'wrong password guess' }, { 'x-real-ip': `198.51.100.${attempt + 1}` });
      statuses.push(reply.status);
    }
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    expect(statuses[10]).toBe(429);
  });

  it('limits sign-in attempts per client across many addresses, not in one shared bucket', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 11; attempt++) {
      const reply = await new DashboardClient(stack.apiUrl).call(
        'POST',
        '/app/api/auth/sign-in/email',
        { email: uniqueEmail('spray'), password: 'wrong password guess' },
        { 'x-real-ip': '203.0.113.7' },
      );
      statuses.push(reply.status);
    }
    expect(statuses.at(-1)).toBe(429);
    const elsewhere = await new DashboardClient(stack.apiUrl).call('POST', '/app/api/auth/sign-in/email', { email: uniqueEmail('spray'), password: 'wrong password guess' }, { 'x-real-ip': '203.0.113.8' });
    expect(elsewhere.status).toBe(401);
  });

  it('says when sign-up may be tried again once the 5-a-minute limit of a client address is reached', async () => {
    const replies = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const body = { email: uniqueEmail('signup-limit'), password: 'a long enough passphrase', name: 'x' };
      replies.push(await new DashboardClient(stack.apiUrl).call('POST', '/app/api/auth/sign-up/email', body, { 'x-real-ip': '203.0.113.99' }));
    }
    expect(replies.slice(0, 5).every((reply) => reply.status === 200)).toBe(true);
    const limited = replies[5]!;
    expect(limited.status).toBe(429);
    const seconds = Number(limited.headers.get('retry-after'));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(limited.body).toMatchObject({ error: 'too_many_attempts', message: `Too many attempts from your address. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.` });
  });

  it("better-auth finds its tables exactly as our migration made them", async () => {
    const pool = new pg.Pool({ connectionString: stack.config.databaseUrl, max: 1 });
    try {
      const options = dashboardAuthOptions({
        pool,
        config: loadDashboardConfig({}, stack.apiUrl),
        mailer: createMailer(mail.config),
        accounts: NO_ACCOUNTS,
        logger: createLogger('test', 'silent'),
      });
      const plan = await getMigrations(options);
      expect(plan.toBeCreated.map((table) => table.table)).toEqual([]);
      expect(plan.toBeAdded.map((table) => table.table)).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe('the account e-mail', () => {
  it('changes when the link sent to the new address is opened; the account follows; a taken address changes nothing', async () => {
    const oldEmail = uniqueEmail('moving');
    const newEmail = uniqueEmail('moved');
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, oldEmail, 'moving passphrase');
    const taken = await client.post('/app/api/auth/change-email', { newEmail: (await alice.get('/app/api/me')).body.email });
    // The same reply as for a free address (test/dashboard/account-hardening.test.ts); nothing moves.
    expect(taken).toMatchObject({ status: 200, body: { status: true } });
    expect((await client.get('/app/api/me')).body.email).toBe(oldEmail);

    expect((await client.post('/app/api/auth/change-email', { newEmail, callbackURL: '/app/preferences' })).status).toBe(200);
    expect((await client.get('/app/api/me')).body.email).toBe(oldEmail);
    const opened = await client.get(linkIn((await mail.waitForMessage(newEmail)).text));
    expect(opened.status).toBe(302);
    const me = (await client.get('/app/api/me')).body;
    expect(me.email).toBe(newEmail);
    const account = await stack.orm.em.fork().findOneOrFail(Account, me.accountId);
    expect(account.ownerEmail).toBe(newEmail);
    const signIn = await new DashboardClient(stack.apiUrl).post('/app/api/auth/sign-in/email', { email: newEmail, password: 'moving passphrase' });
    expect(signIn.status).toBe(200);
  });
});

describe('API keys and product contexts', () => {
  it('drafts a product context from a product page', async () => {
    const reply = await alice.post('/app/api/keys/draft', { productUrl: `${stack.model.origin}/products/pipeline-pilot/` });
    expect(reply.status).toBe(200);
    expect(reply.body.productContext.name).toBeTruthy();
    expect(reply.body.productContext.keyFeatures.length).toBeGreaterThan(0);
  });

  it.each([
    ['a page over 1 MiB', '/products/huge/', /larger than 1 MiB/],
    ['a redirect loop', '/hops/9/pipeline-pilot', /redirects too many times/],
    ['something that is not HTML', '/v1/models', /not a web page/],
  ])('refuses %s with its reason', async (_name, path, reason) => {
    const reply = await alice.post('/app/api/keys/draft', { productUrl: `${stack.model.origin}${path}` });
    expect(reply.status).toBe(422);
    expect(reply.body).toMatchObject({ error: 'product_page_unreadable', message: expect.stringMatching(reason) });
  });

  it('shows the key once, lists only its prefix, and revocation is immediate for the API', async () => {
    const created = await bob.post('/app/api/keys', PRODUCT);
    expect(created.status).toBe(201);
    const { key, keyId } = created.body as { key: string; keyId: number };
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{42}$/);

    const list = await bob.get('/app/api/keys');
    expect(JSON.stringify(list.body)).not.toContain(key);
    const listed = list.body.keys.find((item: { id: number }) => item.id === keyId);
    expect(listed).toMatchObject({ prefix: key.slice(0, 15), status: 'active', product: { name: 'PipelineIQ' }, lastUsedAt: null, creditsThisCycle: 0 });

    const accepted = await stack.api.research(key, { email: 'someone@zenithmedical.de' });
    expect(accepted.status).toBe(202);
    const afterUse = (await bob.get('/app/api/keys')).body.keys.find((item: { id: number }) => item.id === keyId);
    expect(afterUse.lastUsedAt).not.toBeNull();
    expect(afterUse.creditsThisCycle).toBe(1);

    expect((await bob.post(`/app/api/keys/${keyId}/revoke`)).status).toBe(200);
    const refused = await stack.api.research(key, { email: 'someone@zenithmedical.de' });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_key');
  });

  it('explains the plan key limit when it is reached', async () => {
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, uniqueEmail('limit'));
    expect((await client.post('/app/api/keys', PRODUCT)).status).toBe(201);
    const second = await client.post('/app/api/keys', PRODUCT);
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ error: 'key_limit_reached', plan: 'free', limit: 1 });
    expect(second.body.message).toMatch(/Billing/);
  });

  it('edits a product context for future jobs', async () => {
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, uniqueEmail('edit'));
    const { productId } = (await client.post('/app/api/keys', PRODUCT)).body;
    const edited = await client.put(`/app/api/products/${productId}`, { ...PRODUCT, name: 'PipelineIQ 2', keyFeatures: ['a', 'b'] });
    expect(edited.status).toBe(200);
    const listed = (await client.get('/app/api/keys')).body.keys[0];
    expect(listed.product).toMatchObject({ name: 'PipelineIQ 2', keyFeatures: ['a', 'b'] });
  });
});

describe('bad input', () => {
  it('names the field of every validation error, and keeps the public error body', async () => {
    const missing = await alice.post('/app/api/keys', { ...PRODUCT, name: '   ' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'invalid_request', fields: { name: 'Product name is required.' } });
    const wrongType = await alice.post('/app/api/keys', { ...PRODUCT, keyFeatures: 'not a list' });
    expect(wrongType.body.fields).toHaveProperty('keyFeatures');
    const unknown = await alice.post('/app/api/keys', { ...PRODUCT, isAdmin: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.fields).toHaveProperty('isAdmin');
    const language = await alice.put('/app/api/preferences', { language: 'xx', usageAlerts: true });
    expect(language.body).toMatchObject({ error: 'invalid_request', fields: { language: expect.any(String) } });
  });

  it('answers bad JSON and oversized bodies like the public API', async () => {
    const badJson = await alice.call('POST', '/app/api/keys', '{"name": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.error).toBe('invalid_request');
    const huge = await alice.call('POST', '/app/api/keys', JSON.stringify({ ...PRODUCT, description: 'x'.repeat(70_000) }));
    expect(huge.status).toBe(413);
    expect(huge.body.error).toBe('payload_too_large');
  });

  it('refuses state changes from another origin or without one', async () => {
    const foreign = await alice.call('POST', '/app/api/keys', PRODUCT, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toBe('forbidden_origin');
    const none = await fetch(new URL('/app/api/preferences', stack.apiUrl), { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"language":"de"}' });
    expect(none.status).toBe(403);
  });

  it('asks for a session on every dashboard route', async () => {
    const anonymous = new DashboardClient(stack.apiUrl);
    for (const path of ['/app/api/me', '/app/api/keys', '/app/api/jobs', '/app/api/usage']) {
      const reply = await anonymous.get(path);
      expect(reply.status, path).toBe(401);
      expect(reply.body.error).toBe('unauthenticated');
    }
  });
});

describe('isolation', () => {
  it("answers 404 for another account's key, product and job, exactly as for unknown ids", async () => {
    const { keyId, productId, key } = (await alice.post('/app/api/keys', PRODUCT)).body;
    const researchId = (await stack.api.research(key, { email: 'someone@zenithmedical.de' })).body.research_id as string;
    const attempts = [
      () => bob.post(`/app/api/keys/${keyId}/revoke`),
      () => bob.put(`/app/api/products/${productId}`, PRODUCT),
      () => bob.get(`/app/api/jobs/${researchId}`),
      () => bob.post('/app/api/keys/999999/revoke'),
      () => bob.put('/app/api/products/999999', PRODUCT),
      () => bob.get('/app/api/jobs/res_00000000000000000000'),
      () => bob.post('/app/api/keys/abc/revoke'),
      () => bob.get('/app/api/jobs/not-an-id'),
    ];
    for (const attempt of attempts) {
      const reply = await attempt();
      expect(reply.status).toBe(404);
      expect(reply.body.error).toBe('not_found');
    }
    expect((await alice.get(`/app/api/jobs/${researchId}`)).status).toBe(200);
    const bobsJobs = await bob.get(`/app/api/jobs?keyId=${keyId}`);
    expect(bobsJobs.body.jobs).toEqual([]);
    expect(JSON.stringify((await bob.get('/app/api/usage')).body)).not.toContain(researchId);
    expect((await alice.get('/app/api/keys')).body.keys.some((item: { id: number }) => item.id === keyId)).toBe(true);
  });
});

describe('jobs, usage and preferences', () => {
  it('lists jobs newest first, filters by status and key, and shows a completed result', async () => {
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, uniqueEmail('jobs'));
    const { key, keyId } = (await client.post('/app/api/keys', PRODUCT)).body;
    const first = (await stack.api.research(key, { email: 'tobias.fischer@zenithmedical.de' })).body.research_id;
    await stack.api.waitForEnd(key, first);
    const second = (await stack.api.research(key, { email: 'megan.jones@clearwaterretail.io' })).body.research_id;

    const page = await client.get('/app/api/jobs');
    expect(page.body.jobs.map((job: { id: string }) => job.id)).toEqual([second, first]);
    const completed = await client.get(`/app/api/jobs?status=completed&keyId=${keyId}`);
    expect(completed.body.jobs.map((job: { id: string }) => job.id)).toEqual([first]);

    const detail = await client.get(`/app/api/jobs/${first}`);
    expect(detail.body).toMatchObject({ status: 'completed', email: 'tobias.fischer@zenithmedical.de', productName: 'PipelineIQ', progress: null });
    expect(detail.body.result.data).toHaveProperty('prospect');
    expect(detail.body.durationMs).toBeGreaterThan(0);
  });

  it('shows the credits per day and key, and the ledger', async () => {
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, uniqueEmail('usage'));
    const { key, keyId } = (await client.post('/app/api/keys', PRODUCT)).body;
    await stack.api.research(key, { email: 'someone@zenithmedical.de' });
    const usage = (await client.get('/app/api/usage')).body;
    expect(usage.statement).toMatchObject({ credits_used: 1, credit_limit: 3 });
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.days.find((day: { day: string }) => day.day === today)).toMatchObject({ total: 1, byKey: { [keyId]: 1 } });
    expect(usage.keys).toEqual([{ id: keyId, label: expect.stringContaining('PipelineIQ') }]);
    expect(usage.ledger[0]).toMatchObject({ kind: 'consume', usedDelta: 1 });
  });

  it('saves the output language and the usage-alert switch', async () => {
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, uniqueEmail('language'));
    expect((await client.get('/app/api/me')).body).toMatchObject({ language: 'en', usageAlerts: true });
    expect((await client.put('/app/api/preferences', { language: 'pl', usageAlerts: false })).status).toBe(200);
    expect((await client.get('/app/api/me')).body).toMatchObject({ language: 'pl', usageAlerts: false });
  });
});

describe('account deletion', () => {
  it('needs the password, then revokes the keys, ends the session and refuses sign-in at once', async () => {
    const email = uniqueEmail('leaving');
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, 'leaving passphrase');
    const { key } = (await client.post('/app/api/keys', PRODUCT)).body;
    const wrong = await client.post('/app/api/account/delete', { password: 'not my passphrase' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.fields).toHaveProperty('password');
    expect((await stack.api.research(key, { email: 'someone@zenithmedical.de' })).status).toBe(202);

    const deleted = await client.post('/app/api/account/delete', { password: 'leaving passphrase' });
    expect(deleted.status).toBe(200);
    expect(deleted.body.keysRevoked).toBe(1);
    expect((await stack.api.research(key, { email: 'someone@zenithmedical.de' })).body.error).toBe('invalid_key');
    expect((await client.get('/app/api/me')).status).toBe(401);
    const again = await new DashboardClient(stack.apiUrl).post('/app/api/auth/sign-in/email', { email, password: 'leaving passphrase' });
    expect(again.status).not.toBe(200);
    expect((await alice.get('/app/api/me')).status).toBe(200);
  });
});
