import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePythonClientVenv, PYTHON_CLIENT_DIR } from '../../scripts/lib/python-client.ts';
import { createEndpoint } from '../../services/webhooks/webhooks.ts';
import { startFaultProxy } from '../helpers/fault-proxy.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startTestWebhooks, WEBHOOK_TEST_ENV, type TestWebhooks } from '../helpers/webhook-delivery.ts';

// The Python client (clients/python): its pytest suite, in its venv under .tools/, against this real stack.
const run = promisify(execFile);
let stack: TestStack;
let webhooks: TestWebhooks;
let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
let python: string;

beforeAll(async () => {
  python = await ensurePythonClientVenv();
  stack = await startTestStack({ deadlineMs: 6_000, apiEnv: WEBHOOK_TEST_ENV });
  webhooks = await startTestWebhooks(stack);
  proxy = await startFaultProxy(stack.apiUrl);
}, 300_000);

afterAll(async () => {
  await proxy?.close();
  await webhooks?.stop();
  await stack?.stop();
});

const statusesOf = async (accountId: number): Promise<string[]> =>
  ((await stack.orm.em.fork().execute('select status from research_job where account_id = ? order by submitted_at', [accountId])) as { status: string }[]).map((row) => row.status);

describe('the Python client', () => {
  it('passes its pytest suite against the running stack', async () => {
    const main = await stack.createCustomer('growth');
    const exhausted = await stack.createCustomer('growth');
    const trial = await stack.createCustomer('free');
    await stack.orm.em.fork().execute('update account set credits_used = credit_limit where id in (?, ?)', [exhausted.accountId, trial.accountId]);
    const resubmit = await stack.createCustomer('growth');
    const failing = await stack.createCustomer('growth');
    const proxied = await stack.createCustomer('growth');
    const hooked = await stack.createCustomer('growth');
    const hookPath = '/hooks/python-client';
    const { secret } = await createEndpoint(stack.orm.em.fork(), webhooks.config.secretKey, { accountId: hooked.accountId, url: `${webhooks.receiver.url}${hookPath}`, events: ['research.completed'] }, new Date());
    const described = {
      apiUrl: stack.apiUrl,
      proxyUrl: proxy.url,
      providerUrl: stack.providerWorld.url,
      receiverUrl: webhooks.receiver.url,
      keys: {
        main: main.key,
        noProduct: (await stack.createKey(main.accountId, null)).key,
        exhausted: exhausted.key,
        trial: trial.key,
        resubmit: resubmit.key,
        failing: failing.key,
        proxied: proxied.key,
      },
      emails: Array.from({ length: 9 }, (_, index) => samplePerson(stack, {}, 20 + index).email),
      webhook: { key: hooked.key, path: hookPath, secret },
    };

    // Asynchronously: the API runs in this process and must keep answering while pytest calls it.
    const result = await run(python, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', '--junit-xml=/dev/null'], {
      cwd: PYTHON_CLIENT_DIR,
      env: { ...process.env, PE_STACK: JSON.stringify(described) },
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    const output = `${result.stdout}\n${result.stderr}`;
    // Exit 5 (nothing collected) or any failure fails here; so does a suite that ran fewer tests than it has.
    expect('code' in result ? result.code : 0, output).toBe(0);
    expect(output).toMatch(/\b12 passed\b/);

    expect(await statusesOf(resubmit.accountId)).toEqual(['failed', 'completed']);
    expect(await statusesOf(failing.accountId)).toEqual(['failed', 'failed']);
    // Two lost answers, one job: the retries carried one Idempotency-Key.
    expect(await statusesOf(proxied.accountId)).toHaveLength(1);
    const proxiedPosts = proxy.seen.filter((each) => each.method === 'POST' && each.path === '/research');
    expect(proxiedPosts.map((each) => each.status)).toEqual([502, 502, 202]);
    expect(new Set(proxiedPosts.map((each) => each.idempotencyKey)).size).toBe(1);
  }, 300_000);
});
