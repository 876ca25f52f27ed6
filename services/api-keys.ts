import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, ApiKey, ProductContextRow } from '../db/entities/index.ts';
import type { IApiKey } from '../db/entities/api-key.ts';
import { PLANS } from '../domain/plans.ts';
import type { ProductContext } from '../domain/product-context.ts';
import { API_KEY_PATTERN, API_KEY_PREFIX, newApiKey } from '../lib/ids.ts';

const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

/** SHA-256 suffices for a key of ~250 random bits (DECISIONS.md "Identifiers"). */
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

/** Creates a key, with a new product context when one is given (spec §5.3, §5.6). */
export async function createApiKey(
  em: EntityManager,
  input: { accountId: number; productContext: ProductContext | null },
): Promise<CreatedApiKey> {
  return em.transactional(async (tx) => {
    const account = await tx.findOneOrFail(Account, input.accountId);
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

/** The active key for a presented token, with its account and product, or null. */
export async function findActiveKey(em: EntityManager, token: string): Promise<IApiKey | null> {
  if (!API_KEY_PATTERN.test(token)) return null;
  const apiKey = await em.findOne(ApiKey, { keyHash: hashApiKey(token) }, { populate: ['account', 'product'] });
  if (!apiKey || apiKey.revokedAt) return null;
  return apiKey;
}
