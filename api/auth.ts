import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../domain/errors.ts';
import { findActiveKey, type AuthenticatedKey } from '../services/api-keys.ts';

/**
 * Checks 1–3 of DECISIONS.md, in order: no header → `missing_api_key`; no token
 * after `Bearer` → `missing_key_id`; unknown, malformed or revoked → `invalid_key`.
 */
export async function authenticate(ctx: Context, em: EntityManager): Promise<AuthenticatedKey> {
  const header = ctx.get('authorization');
  if (!header) throw new AppError('missing_api_key', 'Send the header Authorization: Bearer <API_KEY>.');
  const match = /^Bearer(?:\s+(\S*))?\s*$/i.exec(header.trim());
  const token = match?.[1];
  if (!token) throw new AppError('missing_key_id', 'The Authorization header carries no key after "Bearer".');
  const apiKey = await findActiveKey(em, token);
  if (!apiKey) throw new AppError('invalid_key', 'The API key is unknown or revoked.');
  return apiKey;
}
