// Operator commands (and the scripts' way in until the dashboard exists). Each
// prints exactly one JSON object on stdout; errors go to stderr with exit 1.
//
//   account create --email E [--plan free|starter|growth|scale] [--language en|pl|de|fr|es|it|pt|nl]
//   account plan   --account ID --plan P
//   key create     --account ID [--product-name N --product-description D [--key-features "a,b"] [--target-customers "x,y"]]
//   key revoke     --key-id ID
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { initOrm } from '../db/orm.ts';
import { isPlanName, type PlanName } from '../domain/plans.ts';
import { LANGUAGES, type Language } from '../domain/languages.ts';
import { isValidEmail, normaliseEmail } from '../domain/email-address.ts';
import { changePlan, createAccount } from '../services/accounts.ts';
import { createApiKey, revokeApiKey } from '../services/api-keys.ts';
import { postgresIsServing, startEmbeddedPostgres } from './lib/postgres-server.ts';
import { ROOT } from './lib/local-services.ts';

const DEV_DATABASE_URL = 'postgres://prospect:prospect@127.0.0.1:54329/prospect';

class UsageError extends Error {}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    plan: { type: 'string' },
    language: { type: 'string' },
    account: { type: 'string' },
    'key-id': { type: 'string' },
    'product-name': { type: 'string' },
    'product-description': { type: 'string' },
    'key-features': { type: 'string' },
    'target-customers': { type: 'string' },
  },
});

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || !value.trim()) throw new UsageError(`--${name} is required`);
  return value.trim();
}

function id(name: 'account' | 'key-id'): number {
  const value = Number(required(name));
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return value;
}

function plan(fallback?: PlanName): PlanName {
  const value = values.plan ?? fallback;
  if (!value || !isPlanName(value)) throw new UsageError('--plan must be one of free, starter, growth, scale');
  return value;
}

const list = (value: string | undefined) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);

/** The dev database, started on the spot when `npm run dev` is not running. */
async function databaseUrl(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  if (await postgresIsServing(DEV_DATABASE_URL)) return { url: DEV_DATABASE_URL, stop: async () => {} };
  const server = await startEmbeddedPostgres({ dataDir: join(ROOT, '.data', 'postgres'), port: 54329, database: 'prospect' });
  return { url: server.url, stop: () => server.stop() };
}

async function run(): Promise<unknown> {
  const command = positionals.join(' ');
  if (!['account create', 'account plan', 'key create', 'key revoke'].includes(command)) {
    throw new UsageError(`unknown command "${command}"; use: account create | account plan | key create | key revoke`);
  }
  const database = await databaseUrl();
  const orm = await initOrm(database.url, { migrate: true, poolMax: 2 });
  const em = orm.em.fork();
  const now = new Date();
  try {
    switch (command) {
      case 'account create': {
        const email = normaliseEmail(required('email'));
        if (!isValidEmail(email)) throw new UsageError('--email is not a valid e-mail address');
        const language = (values.language ?? 'en') as Language;
        if (!LANGUAGES.includes(language)) throw new UsageError(`--language must be one of ${LANGUAGES.join(', ')}`);
        const account = await createAccount(em, { ownerEmail: email, plan: plan('free'), language }, now);
        return { account_id: account.id };
      }
      case 'account plan':
        return await changePlan(em, id('account'), plan(), now);
      case 'key create': {
        const hasProduct = values['product-name'] !== undefined || values['product-description'] !== undefined;
        const productContext = hasProduct
          ? {
              name: required('product-name'),
              description: required('product-description'),
              keyFeatures: list(values['key-features']),
              targetCustomers: list(values['target-customers']),
              productUrl: null,
            }
          : null;
        const created = await createApiKey(em, { accountId: id('account'), productContext });
        return { key: created.key, key_id: created.keyId, product_id: created.productId };
      }
      default:
        if (!(await revokeApiKey(em, id('key-id'), now))) throw new UsageError('no key with that id');
        return { revoked: true };
    }
  } finally {
    await orm.close();
    await database.stop();
  }
}

try {
  process.stdout.write(`${JSON.stringify(await run())}\n`);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`admin: ${error instanceof UsageError ? message : `failed: ${message}`}\n`);
  process.exit(1);
}
