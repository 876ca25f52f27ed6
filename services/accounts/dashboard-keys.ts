import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, ProductContextRow } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import type { TProductContext } from '../../domain/dashboard/schemas.ts';
import type { KeyListItem } from '../../domain/dashboard/replies.ts';

/** The account's keys, active first, with the credits each used this cycle (consumed minus refunded). */
export async function listKeys(em: EntityManager, account: IAccount): Promise<KeyListItem[]> {
  const rows: Array<Record<string, unknown>> = await em.getConnection().execute(
    `with usage as (
       select j.api_key_id, sum(l.used_delta)::int as credits
       from credit_ledger_entry l join research_job j on j.id = l.research_id
       where l.account_id = ? and l.cycle_start = ? and l.kind in ('consume', 'refund')
       group by j.api_key_id)
     select k.id, k.display_prefix, k.created_at, k.last_used_at, k.revoked_at, coalesce(u.credits, 0) as credits,
            p.id as product_id, p.name, p.description, p.key_features, p.target_customers, p.product_url
     from api_key k
     left join product_context p on p.id = k.product_id
     left join usage u on u.api_key_id = k.id
     where k.account_id = ?
     order by k.revoked_at is not null, k.created_at desc, k.id desc`,
    [account.id, account.cycleStart, account.id],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    prefix: String(row.display_prefix),
    product:
      row.product_id === null
        ? null
        : {
            id: Number(row.product_id),
            name: String(row.name),
            description: String(row.description),
            keyFeatures: row.key_features as string[],
            targetCustomers: row.target_customers as string[],
            productUrl: (row.product_url as string | null) ?? null,
          },
    createdAt: iso(row.created_at)!,
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
    status: row.revoked_at ? 'revoked' : 'active',
    creditsThisCycle: Number(row.credits),
  }));
}

/** Revokes one of the account's keys; false when the account has no such key (404, like an unknown id). */
export async function revokeAccountKey(em: EntityManager, account: IAccount, keyId: number, now: Date): Promise<boolean> {
  const key = await em.findOne(ApiKey, { id: keyId, account: account.id });
  if (!key) return false;
  key.revokedAt ??= now;
  await em.flush();
  return true;
}

/** Edits a product context of the account; future jobs only (cached rows are not rewritten, docs/api.md#authentication). */
export async function updateProductContext(em: EntityManager, account: IAccount, productId: number, input: TProductContext): Promise<boolean> {
  const product = await em.findOne(ProductContextRow, { id: productId, account: account.id });
  if (!product) return false;
  Object.assign(product, input);
  await em.flush();
  return true;
}

export const iso = (value: unknown): string | null => (value === null || value === undefined ? null : new Date(value as string).toISOString());
