// Operator commands (and the scripts' way in until the dashboard exists). Each
// prints exactly one JSON object on stdout; errors go to stderr with exit 1.
//
//   account create --email E [--plan free|starter|growth|scale] [--language en|pl|de|fr|es|it|pt|nl]
//   account plan   --account ID --plan P
//   key create     --account ID [--product-name N --product-description D [--key-features "a,b"] [--target-customers "x,y"]]
//   key create     --account ID --product-url URL   (product context read from the page by the AI; the flags above override fields)
//   key revoke     --key-id ID
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { initOrm } from '../db/orm.ts';
import { isPlanName, type PlanName } from '../domain/plans.ts';
import { LANGUAGES, type Language } from '../domain/languages.ts';
import type { ProductContext } from '../domain/product-context.ts';
import { createAiClient, createAiConfig, createPageFetcher, extractProductContext } from '../integrations/ai/index.ts';
import { isValidEmail, normaliseEmail } from '../domain/email-address.ts';
import { changePlan, createAccount } from '../services/accounts.ts';
import { createApiKey, revokeApiKey } from '../services/api-keys.ts';
import { postgresIsServing, startEmbeddedPostgres } from './lib/postgres-server.ts';

const DEV_DATABASE_URL = 'postgres://prospect:prospect@127.0.0.1:54329/prospect';
const ROOT = join(import.meta.dirname, '..');

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
    'product-url': { type: 'string' },
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

/**
 * Issue 4 §7: the product context drafted from the product's page, as the
 * dashboard will do it. The page is fetched with the SSRF guards of technology
 * detection; loopback and private addresses are reachable only while the model
 * sandbox stands in for the AI (it serves the sample product pages locally).
 */
async function productFromUrl(url: string): Promise<ProductContext> {
  const logger = pino({ name: 'admin', level: process.env.LOG_LEVEL ?? 'warn' }, pino.destination(2));
  const config = createAiConfig(process.env);
  const context = await extractProductContext(url, {
    fetchPage: createPageFetcher({ allowPrivateNetworks: config.source === 'sandbox' }),
    ai: createAiClient(config, logger),
    logger,
  });
  const override = (name: 'product-name' | 'product-description') => values[name]?.trim() || undefined;
  return {
    ...context,
    name: override('product-name') ?? context.name,
    description: override('product-description') ?? context.description,
    keyFeatures: values['key-features'] !== undefined ? list(values['key-features']) : context.keyFeatures,
    targetCustomers: values['target-customers'] !== undefined ? list(values['target-customers']) : context.targetCustomers,
  };
}

function productFromFlags(): ProductContext | null {
  const hasProduct = values['product-name'] !== undefined || values['product-description'] !== undefined;
  if (!hasProduct) return null;
  return {
    name: required('product-name'),
    description: required('product-description'),
    keyFeatures: list(values['key-features']),
    targetCustomers: list(values['target-customers']),
    productUrl: null,
  };
}

async function run(): Promise<unknown> {
  const command = positionals.join(' ');
  if (!['account create', 'account plan', 'key create', 'key revoke'].includes(command)) {
    throw new UsageError(`unknown command "${command}"; use: account create | account plan | key create | key revoke`);
  }
  // Read the page before touching the database: a page that cannot be read creates no key.
  const productUrl = command === 'key create' ? values['product-url']?.trim() : undefined;
  if (productUrl === '') throw new UsageError('--product-url must not be empty');
  if (command === 'key create') id('account');
  const productContext = command === 'key create' ? (productUrl ? await productFromUrl(productUrl) : productFromFlags()) : null;
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
        const created = await createApiKey(em, { accountId: id('account'), productContext });
        const key = { key: created.key, key_id: created.keyId, product_id: created.productId };
        if (!productUrl || !productContext) return key;
        const { name, description, keyFeatures, targetCustomers, productUrl: pageUrl } = productContext;
        return { ...key, product: { name, description, key_features: keyFeatures, target_customers: targetCustomers, product_url: pageUrl } };
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
