import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../domain/errors.ts';
import { findActiveKey, type AuthenticatedKey } from '../services/accounts/api-keys.ts';

/**
 * Checks 1–2 of docs/decisions.md#the-order-of-checks, in order: no header → `missing_api_key`; no token
 * after `Bearer` → `missing_key_id`. Returns the presented token.
 */
export function bearerToken(ctx: Context): string {
  const header = ctx.get('authorization');
  if (!header) throw new AppError('missing_api_key', 'Send the header Authorization: Bearer <API_KEY>.');
  const match = /^Bearer(?:\s+(\S*))?\s*$/i.exec(header.trim());
  const token = match?.[1];
  if (!token) throw new AppError('missing_key_id', 'The Authorization header carries no key after "Bearer".');
  return token;
}

/** Check 3: an unknown, malformed or revoked key. */
export const invalidKey = () => new AppError('invalid_key', 'The API key is unknown or revoked.');

/** Checks 1–3 of docs/decisions.md#the-order-of-checks, in order. */
export async function authenticate(ctx: Context, em: EntityManager): Promise<AuthenticatedKey> {
  const apiKey = await findActiveKey(em, bearerToken(ctx));
  if (!apiKey) throw invalidKey();
  return apiKey;
}
