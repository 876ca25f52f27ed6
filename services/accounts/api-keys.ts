import { createHash } from 'node:crypto';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Account, ApiKey, ProductContextRow } from '../../db/entities/index.ts';
import { PLANS } from '../../domain/billing/plans.ts';
import type { ProductContext } from '../../domain/research/product-context.ts';
import { API_KEY_PATTERN, API_KEY_PREFIX, newApiKey } from '../../lib/ids.ts';

const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

/** SHA-256 suffices for a key of ~250 random bits (docs/decisions.md#identifiers). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface CreatedApiKey {
  /** The full key: shown once, never stored. */
  key: string;
  keyId: number;
  productId: number | null;
}

export class KeyLimitReached extends Error {
  constructor(plan: string, limit: number) {
    super(`the ${plan} plan allows ${limit} active key(s); revoke one first`);
    this.name = 'KeyLimitReached';
  }
}

/**
 * Creates a key, with a new product context when one is given (docs/api.md#authentication).
 * The account row is locked for the count and the insert, as credits are: two
 * creates at once take turns, so the plan's key limit holds under any concurrency.
 */
export async function createApiKey(
  em: EntityManager,
  input: { accountId: number; productContext: ProductContext | null },
): Promise<CreatedApiKey> {
  return em.transactional(async (tx) => {
    const account = await tx.findOneOrFail(Account, input.accountId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const limit = PLANS[account.plan].maxActiveKeys;
    if (limit !== null) {
      const active = await tx.count(ApiKey, { account, revokedAt: null });
      if (active >= limit) throw new KeyLimitReached(account.plan, limit);
    }
    const product = input.productContext ? tx.create(ProductContextRow, { account, ...input.productContext }) : null;
    const key = newApiKey();
    const apiKey = tx.create(ApiKey, {
      account,
      product,
      keyHash: hashApiKey(key),
      displayPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
      revokedAt: null,
    });
    await tx.flush();
    return { key, keyId: apiKey.id, productId: product?.id ?? null };
  });
}

/** Revocation is immediate: authentication reads the key row on every request. */
export async function revokeApiKey(em: EntityManager, keyId: number, now: Date): Promise<boolean> {
  const apiKey = await em.findOne(ApiKey, keyId);
  if (!apiKey) return false;
  apiKey.revokedAt ??= now;
  await em.flush();
  return true;
}

/** Who a request comes from: the ids of its key, account and product context. */
export interface AuthenticatedKey {
  keyId: number;
  accountId: number;
  productId: number | null;
}

/**
 * The active key for a presented token, or null. Every request runs this, so it
 * is one indexed read of one table, with no entity hydration; revocation is
 * seen at once because nothing is cached.
 */
export async function findActiveKey(em: EntityManager, token: string): Promise<AuthenticatedKey | null> {
  if (!API_KEY_PATTERN.test(token)) return null;
  const rows: Array<{ id: number; account_id: number; product_id: number | null }> = await em
    .getConnection()
    .execute('select id, account_id, product_id from api_key where key_hash = ? and revoked_at is null', [hashApiKey(token)]);
  const row = rows[0];
  return row ? { keyId: row.id, accountId: row.account_id, productId: row.product_id } : null;
}
