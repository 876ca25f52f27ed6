import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { revokeApiKey } from '../../services/accounts/api-keys.ts';
import { createApiCaller, type ApiCaller, type ApiReply } from '../helpers/api-caller.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// API keys never reach a reply or a log line (docs/operations.md#logs, lib/logger.ts): the
// real API process (api/main.ts) at LOG_LEVEL=trace, its whole output captured,
// fed keys in every place a client could put them, including where they do not belong.

const ANY_KEY = /svc_live_(?!\[redacted\])[0-9A-Za-z]/;

let stack: TestStack;
let child: ChildProcess;
let output = '';
let api: ApiCaller;
let apiUrl: string;
const replies: ApiReply[] = [];
const keys: string[] = [];

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  const port = await freePort();
  child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'api/main.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.config.temporal.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      PORT: String(port),
      LOG_LEVEL: 'trace',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  apiUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt += 1) {
    if (await fetch(`${apiUrl}/healthz`).then((r) => r.ok, () => false)) break;
    if (attempt > 150) throw new Error(`API did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  api = createApiCaller(apiUrl);
}, 60_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  await stack?.stop();
});

const record = async (reply: Promise<ApiReply>) => {
  const settled = await reply;
  replies.push(settled);
  return settled;
};

describe('API keys in replies and logs', () => {
  it('appear in neither, wherever a client puts them and whatever the outcome', async () => {
    const customer = await stack.createCustomer('starter');
    const trial = await stack.createCustomer('free');
    const revoked = await stack.createKey(customer.accountId);
    await revokeApiKey(stack.orm.em.fork(), revoked.keyId, new Date());
    const noProduct = await stack.createKey((await stack.createCustomer('growth')).accountId, null);
    const unknown = `svc_live_${'Q'.repeat(42)}`;
    keys.push(customer.key, trial.key, revoked.key, noProduct.key, unknown);
    const { key } = customer;

    const accepted = await record(api.research(key, { email: 'secret-test@nowhere-corp.com' }));
    expect(accepted.status).toBe(202);
    await record(api.status(key, accepted.body.research_id));
    await record(api.status(key, accepted.body.research_id, 1));
    await record(api.status(key, 'res_unknown'));
    for (const other of [revoked.key, unknown, noProduct.key]) {
      await record(api.research(other, { email: 'secret-test@nowhere-corp.com' }));
      await record(api.status(other, accepted.body.research_id));
    }
    for (const header of [`bearer ${key}`, `Basic ${key}`, `Bearer ${key} ${key}`, `Bearer  ${key}  `, key, `Token ${key}`]) {
      await record(api.post('/research', { email: 'a@nowhere-corp.com' }, { headers: { authorization: header } }));
    }
    // Keys where they do not belong: path, query, body fields, other headers.
    await record(api.get(`/research-status/${key}`, { key }));
    await record(api.get(`/research-status/x?api_key=${key}&wait=${key}`, { key }));
    await record(api.get(`/${key}`));
    await record(api.research(key, { email: `${key.toLowerCase()}@nowhere-corp.com`, prospect_name: key, company_name: `${key}\r\n` }));
    await record(api.research(key, { email: key }));
    await record(api.research(key, { email: 'b@nowhere-corp.com' }, { 'idempotency-key': key, 'x-api-key': key }));
    await record(api.research(key, { email: 'b2@nowhere-corp.com' }, { 'idempotency-key': key }));
    await record(api.research(key, { email: 'c@nowhere-corp.com' }, { 'idempotency-key': `${key} with space` }));
    await record(api.post('/research', null, { key, rawBody: `{"email":"${key}","email":"${key}"}` }));
    await record(api.post('/research', null, { key, rawBody: `{"email": ${key}` }));
    await record(api.post('/research', null, { key, rawBody: key, headers: { 'content-type': `text/${key}` } }));
    // Free plan: the fourth request finds no credit left (429 with used and limit).
    for (let index = 0; index < 4; index += 1) await record(api.research(trial.key, { email: `more-${index}@nowhere-corp.com` }));

    // A database failure under the API's feet: whatever it logs (errors carry SQL) carries no key.
    await terminateConnections(stack.config.databaseUrl);
    for (let index = 0; index < 3; index += 1) {
      await record(api.research(key, { email: `after-${index}@nowhere-corp.com` }));
      await record(api.status(key, accepted.body.research_id));
    }

    const statuses = new Set(replies.map((reply) => reply.status));
    for (const status of [202, 200, 400, 401, 404, 409, 429]) expect(statuses, `a ${status} among the replies`).toContain(status);
    for (const reply of replies) {
      const text = JSON.stringify(reply.body) + JSON.stringify([...reply.headers]);
      expect(text).not.toMatch(ANY_KEY);
    }
    await new Promise((resolve) => setTimeout(resolve, 300)); // let the last log lines arrive
    const lines = output.split('\n').filter(Boolean);
    expect(lines.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(replies.length);
    for (const candidate of keys) expect(output).not.toContain(candidate);
    expect(output.match(new RegExp(ANY_KEY.source, 'g')) ?? []).toEqual([]);
  }, 60_000);
});

/** Ends every session of the test database but ours, as a failover would. */
async function terminateConnections(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  } finally {
    await client.end();
  }
}
