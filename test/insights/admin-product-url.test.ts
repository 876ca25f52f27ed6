import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { pickPeople, research } from './insight-helpers.ts';

// `npm run admin -- key create --product-url URL` as an operator runs it: a
// separate process on the test stack's database, the model sandbox standing in
// for the AI and serving the product page.

const run = promisify(execFile);
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

async function admin(args: string[], env: Record<string, string> = {}) {
  const childEnv = {
    ...process.env,
    DATABASE_URL: stack.config.databaseUrl,
    AI_SANDBOX_URL: stack.model.url,
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
    AI_MAX_RETRIES: '0',
    ...env,
  };
  return run(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'scripts/admin.ts'), ...args], { env: childEnv, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

async function keyCount(accountId: number): Promise<number> {
  const rows = await stack.orm.em.fork().getConnection().execute('select count(*)::int as n from api_key where account_id = ?', [accountId]);
  return rows[0].n;
}

describe('key create --product-url', () => {
  it('reads the product page into the key\'s product context; the key researches with it', async () => {
    const accountId = await stack.createAccount('growth', 'en');
    const url = `${stack.model.origin}/products/ledgerly/`;
    const result = await admin(['key', 'create', '--account', String(accountId), '--product-url', url]);
    expect(result.code, result.stderr).toBe(0);

    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]);
    expect(created).toMatchObject({
      key: expect.stringMatching(/^svc_live_[0-9A-Za-z]{42}$/),
      key_id: expect.any(Number),
      product_id: expect.any(Number),
      product: {
        name: 'Ledgerly',
        description: expect.stringMatching(/\S{3,}/),
        key_features: expect.arrayContaining(['Bank reconciliation']),
        target_customers: expect.arrayContaining(['Accounting firms']),
        product_url: url,
      },
    });
    expect(stack.model.requests().some((request) => request.schemaName === 'product_context')).toBe(true);

    const [{ person }] = pickPeople(stack, 1, { knownTo: 'both', companyKnownTo: 'both' });
    const reply = await research(stack, created.key, person.email);
    for (const point of reply.data.company!.synergy_points!) expect(point).toContain('Ledgerly');
  });

  it('flags given with the URL override the extracted fields', async () => {
    const accountId = await stack.createAccount('growth', 'en');
    const result = await admin([
      'key', 'create', '--account', String(accountId), '--product-url', `${stack.model.origin}/products/fleetwise/`, '--product-name', 'Fleetwise Pro',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).product).toMatchObject({ name: 'Fleetwise Pro', key_features: expect.arrayContaining(['Live vehicle tracking']) });
  });

  it('refuses a loopback page unless ALLOW_PRIVATE_HOSTS names its host, whatever AI endpoint is configured, and creates no key', async () => {
    const accountId = await stack.createAccount('growth', 'en');
    // The model stand-in configured, as before, is no longer a reason to reach a private address.
    const result = await admin(['key', 'create', '--account', String(accountId), '--product-url', `${stack.model.origin}/products/ledgerly/`], {
      ALLOW_PRIVATE_HOSTS: '',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/private, loopback or reserved address/);
    expect(result.stdout).toBe('');
    expect(await keyCount(accountId)).toBe(0);
  });

  it('fails without creating a key when the page is missing or the model is down', async () => {
    const accountId = await stack.createAccount('growth', 'en');
    const missing = await admin(['key', 'create', '--account', String(accountId), '--product-url', `${stack.model.origin}/products/no-such-product/`]);
    expect([missing.code, missing.stdout]).toEqual([1, '']);
    expect(missing.stderr).toMatch(/answered 404/);
    stack.model.setFaults({ mode: 'serverError' });
    const down = await admin(['key', 'create', '--account', String(accountId), '--product-url', `${stack.model.origin}/products/ledgerly/`]);
    stack.model.reset();
    expect([down.code, down.stdout]).toEqual([1, '']);
    expect(await keyCount(accountId)).toBe(0);
  });
});
