import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import { AppError } from '../../domain/errors.ts';
import type { AuthenticatedKey } from '../../services/accounts/api-keys.ts';
import { listKeyProducts } from '../../services/accounts/products.ts';
import { creditsLeftOf } from '../../services/lists/lists.ts';
import type { ApiDeps } from '../deps.ts';
import type { McpCaller } from './caller.ts';

/** What every tool of one request works with: the API's dependencies and the authenticated caller. */
export interface ToolContext {
  deps: ApiDeps;
  caller: McpCaller;
}

export async function accountOf(em: EntityManager, caller: McpCaller): Promise<IAccount> {
  return em.findOneOrFail(Account, { id: caller.accountId });
}

export async function creditsLeft(em: EntityManager, caller: McpCaller, now: Date): Promise<number> {
  return creditsLeftOf(await accountOf(em, caller), now);
}

/**
 * The key a call runs as: the caller's own (its product context is the
 * default), or, when the call names a product (its id or name, as get_account
 * lists them), the account's key that carries that product. An OAuth-connected
 * agent has no key: with one product on the account it is that one, with
 * several the call must name it.
 */
export async function keyForProduct(em: EntityManager, caller: McpCaller, product: string | undefined): Promise<AuthenticatedKey> {
  if (product === undefined || product.trim() === '') {
    if (caller.keyId !== null) {
      if (caller.productId === null) throw new AppError('api_key_has_no_product', 'This key has no product context; name a product (see get_account) or create a key with one.', { field: 'product' });
      return { keyId: caller.keyId, accountId: caller.accountId, productId: caller.productId };
    }
    const products = await listKeyProducts(em, caller.accountId);
    if (products.length === 1) return { keyId: products[0]!.keyId, accountId: caller.accountId, productId: products[0]!.productId };
    if (products.length === 0) throw new AppError('invalid_request', 'product: this account has no product context yet; create an API key with one in the dashboard (Keys).', { field: 'product' });
    throw new AppError('invalid_request', `product: this account has several products; name one of: ${products.map((candidate) => candidate.name).join(', ')} (get_account lists them).`, { field: 'product' });
  }
  const wanted = product.trim().toLowerCase();
  const products = await listKeyProducts(em, caller.accountId);
  const found = products.find((candidate) => String(candidate.productId) === wanted) ?? products.find((candidate) => candidate.name.toLowerCase() === wanted);
  if (!found) {
    const names = products.map((candidate) => candidate.name).join(', ') || 'none';
    throw new AppError('invalid_request', `product: no product of this account is called "${product}"; name one of: ${names} (get_account lists them).`, { field: 'product' });
  }
  return { keyId: found.keyId, accountId: caller.accountId, productId: found.productId };
}
