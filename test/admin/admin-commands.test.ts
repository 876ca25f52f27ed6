import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

const run = promisify(execFile);
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
});
afterAll(() => stack?.stop());

/** Runs the admin command as an operator would; stdout must be exactly one JSON object. */
async function admin(...args: string[]): Promise<any> {
  const { stdout } = await run(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'scripts/admin.ts'), ...args], {
    env: { ...process.env, DATABASE_URL: stack.config.databaseUrl },
  });
  expect(stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(stdout);
}

async function adminFails(...args: string[]): Promise<string> {
  try {
    await admin(...args);
  } catch (error) {
    const failure = error as { code: number; stderr: string; stdout: string };
    expect(failure.code).toBe(1);
    expect(failure.stdout).toBe('');
    return failure.stderr;
  }
  throw new Error('admin command succeeded unexpectedly');
}

describe('npm run admin', () => {
  it('creates an account and a key that works on the API, and revokes it', async () => {
    const { account_id } = await admin('account', 'create', '--email', 'Ops@Example.com', '--plan', 'starter', '--language', 'pl');
    expect(account_id).toEqual(expect.any(Number));
    const created = await admin('key', 'create', '--account', String(account_id), '--product-name', 'Ledgerly',
      '--product-description', 'Accounting automation', '--key-features', 'invoices, reconciliation', '--target-customers', 'CFOs');
    expect(created).toEqual({ key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{42}$/), key_id: expect.any(Number), product_id: expect.any(Number) });

    expect((await stack.api.research(created.key, { email: 'anyone@nowhere-corp.com' })).status).toBe(202);
    expect(await admin('key', 'revoke', '--key-id', String(created.key_id))).toEqual({ revoked: true });
    expect((await stack.api.research(created.key, { email: 'anyone@nowhere-corp.com' })).body.error).toBe('invalid_key');
  });

  it('a key without product flags has no product context', async () => {
    const { account_id } = await admin('account', 'create', '--email', 'bare@example.com');
    const created = await admin('key', 'create', '--account', String(account_id));
    expect(created.product_id).toBeNull();
    expect((await stack.api.research(created.key, { email: 'x@nowhere-corp.com' })).body.error).toBe('api_key_has_no_product');
  });

  it('enforces the plan\'s key limit (Free: 1 active key)', async () => {
    const { account_id } = await admin('account', 'create', '--email', 'free@example.com', '--plan', 'free');
    await admin('key', 'create', '--account', String(account_id));
    expect(await adminFails('key', 'create', '--account', String(account_id))).toMatch(/allows 1 active key/);
  });

  it('account plan prints the new plan and credit figures', async () => {
    const { account_id } = await admin('account', 'create', '--email', 'grow@example.com', '--plan', 'starter');
    const upgraded = await admin('account', 'plan', '--account', String(account_id), '--plan', 'scale');
    expect(upgraded).toMatchObject({ account_id, plan: 'scale', pending_plan: null, credits_used: 0 });
    expect(upgraded.credit_limit).toBeGreaterThan(50);
    expect(upgraded.credits_remaining).toBe(upgraded.credit_limit);
  });

  it('says what is wrong, on stderr, for bad input', async () => {
    expect(await adminFails('account', 'create', '--email', 'not-an-email')).toMatch(/--email/);
    expect(await adminFails('account', 'create', '--email', 'a@example.com', '--plan', 'gold')).toMatch(/--plan/);
    expect(await adminFails('key', 'revoke', '--key-id', '999999')).toMatch(/no key/);
    expect(await adminFails('frobnicate')).toMatch(/unknown command/);
  });
});
