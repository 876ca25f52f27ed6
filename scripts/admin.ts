// Operator commands. Each prints exactly one JSON value (an object, or an array
// for the lists) on stdout; usage errors and failures go to stderr with exit 1.
// `npm run --silent admin -- --help` lists the commands, `<command> --help` its flags.
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { EntityManager } from '@mikro-orm/postgresql';
import { initOrm } from '../db/orm.ts';
import { Account } from '../db/entities/index.ts';
import { isPlanName, PLAN_NAMES, type PlanName } from '../domain/billing/plans.ts';
import { LANGUAGES, type Language } from '../domain/research/languages.ts';
import type { ProductContext } from '../domain/research/product-context.ts';
import { createAiClient, createAiConfig, createPageFetcher, extractProductContext } from '../integrations/ai/index.ts';
import { isValidEmail, normaliseEmail } from '../domain/research/email-address.ts';
import { loadOutboundPolicy } from '../integrations/web/outbound-guard.ts';
import { ConfigError, exitOnConfigError, loadDotEnv } from '../lib/env.ts';
import { changePlan, createAccount, creditStatement } from '../services/accounts/accounts.ts';
import { createApiKey, revokeApiKey } from '../services/accounts/api-keys.ts';
import { listKeys } from '../services/accounts/dashboard-keys.ts';
import { parseCommandLine, UsageError } from './lib/admin-cli.ts';
import { ADMIN_COMMANDS } from './lib/admin-commands.ts';
import { readDevDataDir, readDevPorts } from './lib/dev-ports.ts';
import { postgresDataDirectory, startEmbeddedPostgres } from './lib/postgres-server.ts';

const ROOT = join(import.meta.dirname, '..');
const PROGRAM = 'npm run --silent admin --';

type Values = Record<string, string | undefined>;

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || !value.trim()) throw new UsageError(`--${name} is required`);
  return value.trim();
}

function id(values: Values, name: 'account' | 'key-id'): number {
  const value = Number(required(values, name));
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return value;
}

function plan(values: Values, fallback?: PlanName): PlanName {
  const value = values.plan ?? fallback;
  if (!value || !isPlanName(value)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  return value;
}

function language(values: Values, fallback?: Language): Language {
  const value = (values.language ?? fallback) as Language | undefined;
  if (!value || !LANGUAGES.includes(value)) throw new UsageError(`--language must be one of ${LANGUAGES.join(', ')}`);
  return value;
}

const list = (value: string | undefined) => (value ?? '').split(',').map((item) => item.trim()).filter(Boolean);

/** The dev database (DEV_POSTGRES_PORT, DEV_DATA_DIR), started on the spot when `npm run dev` is not running. */
async function databaseUrl(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL?.trim()) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const { postgres: port } = readDevPorts(process.env);
  const dataDir = join(readDevDataDir(process.env, ROOT), 'postgres');
  const served = await postgresDataDirectory(port);
  if (served !== null && !isSameDirectory(served, dataDir)) throw new UsageError(`port ${port} serves another checkout's PostgreSQL (${served}); set DEV_POSTGRES_PORT or DATABASE_URL`);
  const server = await startEmbeddedPostgres({ dataDir, port, database: 'prospect' });
  return { url: server.url, stop: () => server.stop() };
}

function isSameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * The product context drafted from the product's page, as the dashboard does
 * it: through the outbound guard, private addresses only for the hosts
 * ALLOW_PRIVATE_HOSTS names (development and tests).
 */
async function productFromUrl(url: string, values: Values): Promise<ProductContext> {
  const logger = pino({ name: 'admin', level: process.env.LOG_LEVEL || 'warn' }, pino.destination(2));
  const config = createAiConfig(process.env);
  const context = await extractProductContext(url, {
    fetchPage: createPageFetcher({ policy: loadOutboundPolicy(process.env) }),
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

function productFromFlags(values: Values): ProductContext | null {
  const hasProduct = values['product-name'] !== undefined || values['product-description'] !== undefined;
  if (!hasProduct) return null;
  return {
    name: required(values, 'product-name'),
    description: required(values, 'product-description'),
    keyFeatures: list(values['key-features']),
    targetCustomers: list(values['target-customers']),
    productUrl: null,
  };
}

async function findAccount(em: EntityManager, accountId: number) {
  const account = await em.findOne(Account, accountId);
  if (!account) throw new UsageError(`no account with id ${accountId}`);
  return account;
}

async function accountDetails(em: EntityManager, accountId: number) {
  const account = await findAccount(em, accountId);
  return { ...creditStatement(account), owner_email: account.ownerEmail, language: account.language, created_at: account.createdAt.toISOString() };
}

async function run(name: string, values: Values, em: EntityManager, productContext: ProductContext | null): Promise<unknown> {
  const now = new Date();
  switch (name) {
    case 'account create': {
      const email = normaliseEmail(required(values, 'email'));
      if (!isValidEmail(email)) throw new UsageError('--email is not a valid e-mail address');
      const account = await createAccount(em, { ownerEmail: email, plan: plan(values, 'free'), language: language(values, 'en') }, now);
      return { account_id: account.id };
    }
    case 'account list': {
      const accounts = await em.find(Account, {}, { orderBy: { id: 'asc' } });
      return accounts.map((account) => ({
        account_id: account.id,
        owner_email: account.ownerEmail,
        plan: account.plan,
        language: account.language,
        credits_used: account.creditsUsed,
        credit_limit: account.creditLimit,
        created_at: account.createdAt.toISOString(),
      }));
    }
    case 'account show':
      return accountDetails(em, id(values, 'account'));
    case 'account plan':
      return changePlan(em, id(values, 'account'), plan(values), now);
    case 'account language': {
      const account = await findAccount(em, id(values, 'account'));
      account.language = language(values);
      await em.flush();
      return accountDetails(em, account.id);
    }
    case 'key create': {
      const created = await createApiKey(em, { accountId: id(values, 'account'), productContext });
      const key = { key: created.key, key_id: created.keyId, product_id: created.productId };
      if (!values['product-url'] || !productContext) return key;
      const { name: productName, description, keyFeatures, targetCustomers, productUrl } = productContext;
      return { ...key, product: { name: productName, description, key_features: keyFeatures, target_customers: targetCustomers, product_url: productUrl } };
    }
    case 'key list': {
      const keys = await listKeys(em, await findAccount(em, id(values, 'account')));
      return keys.map((key) => ({
        key_id: key.id,
        prefix: key.prefix,
        product: key.product && { id: key.product.id, name: key.product.name },
        created_at: key.createdAt,
        last_used_at: key.lastUsedAt,
        revoked_at: key.revokedAt,
        credits_this_cycle: key.creditsThisCycle,
      }));
    }
    case 'key revoke':
      if (!(await revokeApiKey(em, id(values, 'key-id'), now))) throw new UsageError('no key with that id');
      return { revoked: true };
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}

async function main(): Promise<void> {
  const parsed = parseCommandLine(ADMIN_COMMANDS, process.argv.slice(2), PROGRAM);
  if (parsed.kind === 'help') {
    process.stdout.write(`${parsed.text}\n`);
    return;
  }
  const { command, values } = parsed;
  // Checked before the database is touched (or started): a wrong flag creates nothing.
  if ('account' in command.flags) id(values, 'account');
  if ('key-id' in command.flags) id(values, 'key-id');
  if (values.plan !== undefined || command.name === 'account plan') plan(values);
  if (values.language !== undefined || command.name === 'account language') language(values);
  if (command.name === 'account create' && !isValidEmail(normaliseEmail(required(values, 'email')))) throw new UsageError('--email is not a valid e-mail address');
  // Read the page first, too: a page that cannot be read creates no key.
  const productUrl = command.name === 'key create' ? values['product-url']?.trim() : undefined;
  if (productUrl === '') throw new UsageError('--product-url must not be empty');
  const productContext = command.name === 'key create' ? (productUrl ? await productFromUrl(productUrl, values) : productFromFlags(values)) : null;

  const database = await databaseUrl();
  const orm = await initOrm(database.url, { migrate: true, poolMax: 2 });
  try {
    process.stdout.write(`${JSON.stringify(await run(command.name, values, orm.em.fork(), productContext))}\n`);
  } finally {
    await orm.close();
    await database.stop();
  }
}

try {
  loadDotEnv();
  await main();
} catch (error) {
  if (error instanceof ConfigError) exitOnConfigError('admin', error);
  const message = error instanceof UsageError ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`;
  process.stderr.write(`admin: ${message}\n`);
  process.exit(1);
}
