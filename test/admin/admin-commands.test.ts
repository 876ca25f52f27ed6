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

/** Runs the admin command as an operator would; stdout must be exactly one JSON value (object or array). */
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
    expect(await adminFails('frobnicate')).toMatch(/unknown command "frobnicate"/);
    expect(await adminFails('account', 'language', '--account', '1', '--language', 'xx')).toMatch(/--language must be one of en, pl/);
    expect(await adminFails('account', 'show', '--account', '999999')).toMatch(/no account with id 999999/);
  });

  it('names an unknown flag, a flag without its value, and a missing sub-command', async () => {
    expect(await adminFails('account', 'create', '--emial', 'a@example.com')).toBe(
      'admin: unknown flag --emial; see: npm run --silent admin -- account create --help\n',
    );
    expect(await adminFails('account', 'create', '--email')).toBe('admin: --email needs a value; see: npm run --silent admin -- account create --help\n');
    expect(await adminFails('account', 'create', '--email', '--plan', 'free')).toMatch(/^admin: --email needs a value/);
    expect(await adminFails('key')).toMatch(/^admin: "key" needs a sub-command; use one of: key create, key list, key revoke/);
    expect(await adminFails('key', 'list', '--account', '1', 'extra')).toMatch(/unexpected "extra"/);
  });
});

describe('npm run admin --help', () => {
  /** Usage goes to stdout with exit 0; nothing touches the database. */
  async function help(...args: string[]): Promise<string> {
    const { stdout, stderr } = await run(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'scripts/admin.ts'), ...args], {
      env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    });
    expect(stderr).toBe('');
    return stdout;
  }

  it('lists every command, and each group its sub-commands', async () => {
    const all = await help('--help');
    for (const command of ['account create', 'account list', 'account show', 'account plan', 'account language', 'key create', 'key list', 'key revoke']) {
      expect(all).toContain(command);
    }
    expect(await help()).toBe(all);
    const keys = await help('key', '-h');
    expect(keys).toContain('key list');
    expect(keys).not.toContain('account create');
  });

  it("prints each sub-command's flags", async () => {
    expect(await help('account', 'create', '--help')).toMatch(/^Usage: npm run --silent admin -- account create --email E \[--plan P\] \[--language L\]/);
    expect(await help('key', 'create', '--help')).toContain('--product-url URL');
    expect(await help('account', 'language', '--account', '3', '--help')).toContain('--language L');
  });
});

describe('account list, show, language and key list', () => {
  it('show says plan, cycle, credits and language; language changes it', async () => {
    const { account_id } = await admin('account', 'create', '--email', 'shown@example.com', '--plan', 'growth', '--language', 'de');
    const shown = await admin('account', 'show', '--account', String(account_id));
    expect(shown).toEqual({
      account_id,
      owner_email: 'shown@example.com',
      plan: 'growth',
      pending_plan: null,
      language: 'de',
      credits_used: 0,
      credit_limit: 200,
      credits_remaining: 200,
      cycle_start: expect.any(String),
      cycle_end: expect.any(String),
      created_at: expect.any(String),
    });
    expect(Date.parse(shown.cycle_end)).toBeGreaterThan(Date.parse(shown.cycle_start));
    expect(await admin('account', 'language', '--account', String(account_id), '--language', 'fr')).toMatchObject({ account_id, language: 'fr' });
    expect((await admin('account', 'show', '--account', String(account_id))).language).toBe('fr');
  });

  it('list is one JSON array with every account', async () => {
    const { account_id } = await admin('account', 'create', '--email', 'listed@example.com', '--plan', 'scale');
    const accounts = await admin('account', 'list');
    expect(Array.isArray(accounts)).toBe(true);
    expect(accounts).toContainEqual({
      account_id,
      owner_email: 'listed@example.com',
      plan: 'scale',
      language: 'en',
      credits_used: 0,
      credit_limit: 600,
      created_at: expect.any(String),
    });
  });

  it('key list shows prefix, product, created, last used and revoked, never the key', async () => {
    const { account_id } = await admin('account', 'create', '--email', 'keys@example.com', '--plan', 'starter');
    const kept = await admin('key', 'create', '--account', String(account_id), '--product-name', 'Ledgerly', '--product-description', 'Accounting automation');
    const revoked = await admin('key', 'create', '--account', String(account_id));
    await admin('key', 'revoke', '--key-id', String(revoked.key_id));
    const keys = await admin('key', 'list', '--account', String(account_id));
    expect(keys).toEqual([
      {
        key_id: kept.key_id,
        prefix: kept.key.slice(0, 15),
        product: { id: kept.product_id, name: 'Ledgerly' },
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: null,
        credits_this_cycle: 0,
      },
      {
        key_id: revoked.key_id,
        prefix: revoked.key.slice(0, 15),
        product: null,
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: expect.any(String),
        credits_this_cycle: 0,
      },
    ]);
    expect(JSON.stringify(keys)).not.toContain(kept.key);
  });
});
