// The dashboard's accounts tried as an attacker would: a burst of key
// creations against the plan's limit, an address probed through the e-mail
// change, common passwords, NUL characters where PostgreSQL stores text, and
// an owner locked out by someone else's password guesses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../services/accounts/api-keys.ts';
import { COMMON_PASSWORD_MESSAGE } from '../../services/accounts/common-passwords.ts';
import { DashboardClient, linkIn } from '../../scripts/lib/dashboard-client.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let counter = 0;
const uniqueEmail = (name: string) => `${name}-${Date.now()}-${counter++}@example.com`;
const PRODUCT = { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null };
const owner = (email = uniqueEmail('owner'), password?: string) => new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email, password);

beforeAll(async () => {
  mail = await startTestMailSandbox();
  // The proxy header lets one test play many clients; without it the socket address is the client.
  stack = await startTestStack({ apiEnv: { ...mail.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
});

afterAll(async () => {
  await stack?.stop();
  await mail?.close();
});

describe('the plan key limit', () => {
  it('holds when 8 keys are created at once on a Free account (limit 1)', async () => {
    const client = await owner();
    const replies = await Promise.all(Array.from({ length: 8 }, () => client.post('/app/api/keys', PRODUCT)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    expect((await client.get('/app/api/keys')).body.keys.filter((key: { status: string }) => key.status === 'active')).toHaveLength(1);
  });

  it('holds for creates that reach the database at the same moment', async () => {
    const accountId = await stack.createAccount('starter');
    // Warm connections, so that the creates do not queue behind connecting and really overlap.
    await Promise.all(Array.from({ length: 5 }, () => stack.orm.em.fork().getConnection().execute('select pg_sleep(0.05)')));
    const outcomes = await Promise.allSettled(Array.from({ length: 8 }, () => createApiKey(stack.orm.em.fork(), { accountId, productContext: PRODUCT })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason.name)).toEqual(Array(5).fill('KeyLimitReached'));
  });
});

describe('the account e-mail', () => {
  it("answers a move to another account's address as it answers a free one, and tells that address's owner", async () => {
    const takenEmail = uniqueEmail('taken');
    await owner(takenEmail);
    const client = await owner(uniqueEmail('prober'));
    const taken = await client.post('/app/api/auth/change-email', { newEmail: takenEmail, callbackURL: '/app/preferences' });
    const free = await client.post('/app/api/auth/change-email', { newEmail: uniqueEmail('free'), callbackURL: '/app/preferences' });
    expect({ status: taken.status, body: taken.body }).toEqual({ status: free.status, body: free.body });
    expect(taken).toMatchObject({ status: 200, body: { status: true } });
    const notice = await mail.waitForMessage(takenEmail, (message) => /already has an account/.test(message.subject));
    expect(notice.text).toContain('move another account to this address');
    // Nothing moved: the prober's account keeps its address.
    expect((await client.get('/app/api/me')).body.email).toMatch(/^prober-/);
  });

  it('answers a sign-up with a taken address as a new one, and tells its owner', async () => {
    const email = uniqueEmail('existing');
    await owner(email);
    const again = await new DashboardClient(stack.apiUrl).post('/app/api/auth/sign-up/email', { email, password: 'another long passphrase', name: email });
    expect(again.status).toBe(200);
    expect((await mail.waitForMessage(email, (message) => /already has an account/.test(message.subject))).text).toContain('create a new account with this address');
  });
});

describe('passwords', () => {
  it.each(['password1234', '123456789012', 'Qwertyuiop123'])('refuses the common password %s at sign-up', async (password) => {
    const email = uniqueEmail('weak');
    const reply = await new DashboardClient(stack.apiUrl).post('/app/api/auth/sign-up/email', { email, password, name: email });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: 'password_too_common', message: COMMON_PASSWORD_MESSAGE });
  });

  it('refuses a common password as the new one of a reset', async () => {
    const email = uniqueEmail('resetting');
    await owner(email);
    const client = new DashboardClient(stack.apiUrl);
    await client.post('/app/api/auth/request-password-reset', { email, redirectTo: '/app/reset-password' });
    const token = new URL(linkIn((await mail.waitForMessage(email, (message) => /reset/i.test(message.subject))).text)).pathname.split('/').at(-1);
    const reply = await client.post('/app/api/auth/reset-password', { token, newPassword: 'password1234' });
    expect(reply.body).toMatchObject({ error: 'password_too_common' });
  });
});

describe('NUL characters', () => {
  it('are a 400 naming the field in a product, a pasted list, a list name and sign-up, never a 500', async () => {
    const client = await owner();
    const product = await client.post('/app/api/keys', { ...PRODUCT, name: 'Pipeline\u0000IQ' });
    expect(product.status).toBe(400);
    expect(product.body).toMatchObject({ error: 'invalid_request', field: 'name' });
    expect(product.body.message).toMatch(/^name: contains a NUL character/);
    const feature = await client.post('/app/api/keys', { ...PRODUCT, keyFeatures: ['ok', 'bad\u0000'] });
    expect(feature.body).toMatchObject({ error: 'invalid_request', field: 'keyFeatures.1' });
    const pasted = await client.post('/app/api/lists', { pasted: 'anna@acme.com\nben\u0000@acme.com' });
    expect(pasted.body).toMatchObject({ error: 'invalid_request', field: 'pasted' });
    const named = await client.call('POST', `/app/api/lists?name=${encodeURIComponent('my\u0000list')}`, 'email\nanna@acme.com\n', { 'content-type': 'text/csv' });
    expect(named.body).toMatchObject({ error: 'invalid_request', field: 'name' });
    const email = uniqueEmail('nul');
    const signUp = await new DashboardClient(stack.apiUrl).post('/app/api/auth/sign-up/email', { email, password: 'long enough password', name: 'A\u0000B' });
    expect(signUp.body).toMatchObject({ error: 'invalid_request', field: 'name' });
  });
});

describe('an owner locked out by guesses at the password', () => {
  it('signs in with a link sent to the mailbox while the per-address limit holds', async () => {
    const email = uniqueEmail('locked');
    await owner(email, 'the owners own passphrase');
    // Someone else's guesses from many client addresses exhaust the address's limit.
    for (let attempt = 0; attempt < 11; attempt++) {
      await new DashboardClient(stack.apiUrl).call('POST', '/app/api/auth/sign-in/email', { email, password: 'wrong password guess' }, { 'x-real-ip': `192.0.2.${attempt + 1}` });
    }
    const theOwner = new DashboardClient(stack.apiUrl);
    const refused = await theOwner.post('/app/api/auth/sign-in/email', { email, password: 'the owners own passphrase' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_attempts', signInLink: true });
    expect(refused.body.message).toMatch(/sign in with a link sent to your e-mail/);

    const asked = await theOwner.post('/app/api/auth/sign-in/magic-link', { email, callbackURL: '/app/keys' });
    expect(asked).toMatchObject({ status: 200, body: { status: true } });
    const link = linkIn((await mail.waitForMessage(email, (message) => /sign-in link/i.test(message.subject))).text);
    expect((await theOwner.get(link)).status).toBe(302);
    expect((await theOwner.get('/app/api/me')).body.email).toBe(email);
    // The link works once.
    expect((await new DashboardClient(stack.apiUrl).get(link)).headers.get('location')).toMatch(/error=INVALID_TOKEN/);
  });

  it('answers a link request for an address without an account the same, and sends nothing', async () => {
    const email = uniqueEmail('nobody');
    const asked = await new DashboardClient(stack.apiUrl).post('/app/api/auth/sign-in/magic-link', { email, callbackURL: '/app/keys' });
    expect(asked).toMatchObject({ status: 200, body: { status: true } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(mail.sandbox.messages(email)).toHaveLength(0);
  });
});
