import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreditsError,
  ProspectApiError,
  ProspectEnrichment,
  ResearchFailedError,
  ResearchTimeoutError,
  verifyWebhook,
  WebhookVerificationError,
} from '../../clients/typescript/src/index.ts';
import { createEndpoint, listDeliveries } from '../../services/webhooks/webhooks.ts';
import { startFaultProxy } from '../helpers/fault-proxy.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startTestWebhooks, WEBHOOK_TEST_ENV, type TestWebhooks } from '../helpers/webhook-delivery.ts';

// The TypeScript client (clients/typescript) against the real running stack.
const run = promisify(execFile);
const CLIENT_DIR = join(import.meta.dirname, '../../clients/typescript');
let stack: TestStack;
let webhooks: TestWebhooks;
let proxy: Awaited<ReturnType<typeof startFaultProxy>>;

beforeAll(async () => {
  // A deadline short enough for a job held up by a slow provider to fail `timeout` within the test.
  stack = await startTestStack({ deadlineMs: 6_000, apiEnv: WEBHOOK_TEST_ENV });
  webhooks = await startTestWebhooks(stack);
  proxy = await startFaultProxy(stack.apiUrl);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await webhooks?.stop();
  await stack?.stop();
});

const clientFor = (apiKey: string, baseUrl = stack.apiUrl) => new ProspectEnrichment({ apiKey, baseUrl, serverRetryBaseMs: 50, resubmitDelayMs: 5_000 });
const jobsOf = async (accountId: number): Promise<{ id: string; status: string }[]> =>
  stack.orm.em.fork().execute('select id, status from research_job where account_id = ? order by submitted_at', [accountId]);

describe('the TypeScript client', () => {
  it('researches a prospect end to end, then answers the same prospect from the cache', async () => {
    const customer = await stack.createCustomer('growth');
    const client = clientFor(customer.key);
    const person = samplePerson(stack, {}, 3);
    const reply = await client.research({ email: person.email });
    expect(reply.status).toBe('completed');
    expect(reply.data.prospect?.email).toBe(person.email.toLowerCase());

    const callsBefore = stack.providerWorld.calls();
    const startedAt = Date.now();
    const again = await client.research(person.email);
    expect(again.status).toBe('completed');
    expect(again.research_id).not.toBe(reply.research_id);
    // A cache hit: no provider was asked again.
    expect(stack.providerWorld.calls()).toBe(callsBefore);
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  }, 60_000);

  it('raises typed errors with the spec codes', async () => {
    const customer = await stack.createCustomer('growth');
    const client = clientFor(customer.key);
    const codeOf = (promise: Promise<unknown>) => promise.then(() => 'no error', (error: ProspectApiError) => `${error.status} ${error.code}`);

    expect(await codeOf(clientFor('').research('a@example.com'))).toBe('401 missing_api_key');
    expect(await codeOf(clientFor(`svc_live_${'x'.repeat(42)}`).research('a@example.com'))).toBe('401 invalid_key');
    expect(await codeOf(client.research('not-an-email'))).toBe('400 invalid_email_format');
    expect(await codeOf(client.research({} as never))).toBe('400 missing_email');
    expect(await codeOf(client.status('res_doesnotexist'))).toBe('404 not_found');
    const noProduct = await stack.createKey(customer.accountId, null);
    expect(await codeOf(clientFor(noProduct.key).research('a@example.com'))).toBe('400 api_key_has_no_product');
    await client.submit({ email: 'first@example.com' }, { idempotencyKey: 'same-key' });
    expect(await codeOf(client.submit({ email: 'second@example.com' }, { idempotencyKey: 'same-key' }))).toBe('409 idempotency_key_reused');

    await stack.orm.em.fork().execute('update account set credits_used = credit_limit where id = ?', [customer.accountId]);
    const exhausted = await client.research('b@example.com').catch((error: unknown) => error);
    expect(exhausted).toBeInstanceOf(CreditsError);
    expect(exhausted).toMatchObject({ status: 429, code: 'credits_exhausted' });
    expect((exhausted as CreditsError).used).toBe((exhausted as CreditsError).limit);
    expect((exhausted as CreditsError).limit).toBeGreaterThan(0);

    const free = await stack.createCustomer('free');
    await stack.orm.em.fork().execute('update account set credits_used = credit_limit where id = ?', [free.accountId]);
    const trial = await clientFor(free.key).research('c@example.com').catch((error: unknown) => error);
    expect(trial).toMatchObject({ status: 429, code: 'trial_limit_reached', used: 3, limit: 3 });
  }, 60_000);

  it('resubmits a failed job once after 5 s', async () => {
    const customer = await stack.createCustomer('growth');
    const client = clientFor(customer.key);
    // The first job waits on a provider past its deadline and fails `timeout`; then the provider is quick again.
    stack.providerWorld.setLatency({ '*': { meanMs: 20_000 } });
    const research = client.research({ email: samplePerson(stack, {}, 5).email });
    let firstFailedAt = 0;
    try {
      await expect.poll(async () => (await jobsOf(customer.accountId))[0]?.status, { timeout: 20_000, interval: 100 }).toBe('failed');
      firstFailedAt = Date.now();
    } finally {
      stack.providerWorld.setLatency(null);
    }
    const reply = await research;
    expect(reply.status).toBe('completed');
    const jobs = await jobsOf(customer.accountId);
    expect(jobs.map((job) => job.status)).toEqual(['failed', 'completed']);
    expect(reply.research_id).toBe(jobs[1].id);
    const secondSubmittedAt = (await stack.orm.em.fork().execute('select submitted_at from research_job where id = ?', [jobs[1].id]))[0].submitted_at;
    expect(new Date(secondSubmittedAt).getTime() - firstFailedAt).toBeGreaterThan(4_000);
  }, 60_000);

  it('gives up after the one resubmission also failed', async () => {
    const customer = await stack.createCustomer('growth');
    stack.providerWorld.setLatency({ '*': { meanMs: 20_000 } });
    try {
      const error = await clientFor(customer.key).research({ email: samplePerson(stack, {}, 6).email }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResearchFailedError);
      expect(error).toMatchObject({ code: 'timeout' });
      expect((await jobsOf(customer.accountId)).map((job) => job.status)).toEqual(['failed', 'failed']);
    } finally {
      stack.providerWorld.setLatency(null);
    }
  }, 60_000);

  it('gives up waiting after its patience (3 minutes by default) with ResearchTimeoutError', async () => {
    const customer = await stack.createCustomer('growth');
    stack.providerWorld.setLatency({ '*': { meanMs: 20_000 } });
    try {
      const client = new ProspectEnrichment({ apiKey: customer.key, baseUrl: stack.apiUrl, pollTimeoutMs: 1_500 });
      const startedAt = Date.now();
      const error = await client.research({ email: samplePerson(stack, {}, 12).email }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ResearchTimeoutError);
      expect(Date.now() - startedAt).toBeLessThan(4_000);
    } finally {
      stack.providerWorld.setLatency(null);
    }
  }, 30_000);

  it('retries a 5xx at most 3 times, with the same Idempotency-Key (one credit)', async () => {
    const customer = await stack.createCustomer('growth');
    const client = clientFor(customer.key, proxy.url);
    // The API took the job but its answer was lost twice: the retry with the same key gets the same job.
    proxy.failNext(2, 502, { after: true });
    const seenBefore = proxy.seen.length;
    const accepted = await client.submit({ email: samplePerson(stack, {}, 7).email });
    const posts = proxy.seen.slice(seenBefore);
    expect(posts.map((each) => each.status)).toEqual([502, 502, 202]);
    expect(new Set(posts.map((each) => each.idempotencyKey)).size).toBe(1);
    expect((await jobsOf(customer.accountId)).map((job) => job.id)).toEqual([accepted.research_id]);

    proxy.failNext(4, 503);
    const error = await client.status(accepted.research_id).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 503 });
    expect(proxy.seen.slice(-4).map((each) => each.status)).toEqual([503, 503, 503, 503]);
    proxy.failNext(0);
  }, 60_000);

  it('verifies a webhook delivered for a job it researched', async () => {
    const customer = await stack.createCustomer('growth');
    const { endpoint, secret } = await createEndpoint(stack.orm.em.fork(), webhooks.config.secretKey, { accountId: customer.accountId, url: `${webhooks.receiver.url}/hooks/ts-client`, events: ['research.completed'] }, new Date());
    const reply = await clientFor(customer.key).research({ email: samplePerson(stack, {}, 8).email });
    await expect.poll(async () => (await listDeliveries(stack.orm.em.fork(), customer.accountId, endpoint.id))[0]?.status, { timeout: 20_000 }).toBe('delivered');
    const [got] = webhooks.receiver.received('/hooks/ts-client');
    const headers = { 'webhook-id': got.webhookId!, 'webhook-timestamp': got.webhookTimestamp!, 'webhook-signature': got.webhookSignature! };
    const event = await verifyWebhook(headers, got.body, secret);
    expect(event).toMatchObject({ type: 'research.completed', data: { research_id: reply.research_id, status: 'completed' } });
    await expect(verifyWebhook(headers, got.body.replace('completed', 'failed'), secret)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(headers, got.body, `whsec_${Buffer.alloc(24, 2).toString('base64')}`)).rejects.toBeInstanceOf(WebhookVerificationError);
    await expect(verifyWebhook(headers, got.body, secret, { now: new Date(Date.now() + 10 * 60_000) })).rejects.toThrow(/too old/);
  }, 60_000);

  it('researches many with a concurrency limit and progress', async () => {
    const customer = await stack.createCustomer('growth');
    const emails = [9, 10, 11].map((index) => samplePerson(stack, {}, index).email);
    const progress: number[] = [];
    const results = await clientFor(customer.key).researchMany([...emails, 'not-an-email'], { concurrency: 2, onProgress: ({ done }) => progress.push(done) });
    expect(results.map((result) => result.ok)).toEqual([true, true, true, false]);
    expect(results[3].ok === false && results[3].error).toMatchObject({ code: 'invalid_email_format' });
    expect(progress).toEqual([1, 2, 3, 4]);
  }, 90_000);

  it('the generated client matches /openapi.json', async () => {
    if (!existsSync(join(CLIENT_DIR, 'node_modules/openapi-typescript'))) await run('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: CLIENT_DIR });
    // The running server's document, as a caller would fetch it (asynchronously: the API runs in this process).
    const { stdout } = await run(process.execPath, ['scripts/generate.mjs', '--check'], { cwd: CLIENT_DIR, env: { ...process.env, OPENAPI_URL: `${stack.apiUrl}/openapi.json` } });
    expect(stdout).toContain('matches');
  }, 120_000);

  // Its dist/ is committed, kept equal to a build of src/ by test/clients/client-packaging.test.ts.
  it('ships the ESM package with types that its package.json promises, and a plain Node program uses it', async () => {
    const { stdout: packed } = await run('npm', ['pack', '--dry-run', '--json'], { cwd: CLIENT_DIR });
    const files = (JSON.parse(packed) as [{ files: { path: string }[] }])[0].files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/webhooks.js', 'package.json']));

    // What a caller's program does after installing the package: import it by its name, verify a webhook, ask for a job's status.
    const { key, accountId } = await stack.createCustomer('growth');
    const program = `
      import { ProspectEnrichment, verifyWebhook, WebhookVerificationError } from '@prospect-enrichment/client';
      const client = new ProspectEnrichment({ apiKey: process.env.KEY, baseUrl: process.env.BASE_URL });
      const job = await client.submit({ email: process.env.EMAIL });
      try { await verifyWebhook({}, '{}', 'whsec_' + Buffer.from('x'.repeat(32)).toString('base64')); } catch (error) { if (!(error instanceof WebhookVerificationError)) throw error; }
      console.log(JSON.stringify(job));`;
    // Inside the package's folder, so that its name resolves to itself (the build's dist/, through "exports").
    const consumer = join(CLIENT_DIR, `.consumer-test-${process.pid}.mjs`);
    await (await import('node:fs/promises')).writeFile(consumer, program);
    try {
      const { stdout } = await run(process.execPath, [consumer], {
        cwd: CLIENT_DIR,
        env: { ...process.env, KEY: key, BASE_URL: stack.apiUrl, EMAIL: samplePerson(stack).email },
      });
      const job = JSON.parse(stdout.trim()) as { research_id: string };
      expect((await jobsOf(accountId)).map((row) => row.id)).toEqual([job.research_id]);
    } finally {
      await (await import('node:fs/promises')).rm(consumer, { force: true });
    }
  }, 180_000);
});
