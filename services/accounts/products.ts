import type { EntityManager } from '@mikro-orm/postgresql';

/** A product context a call may name: one per active key that carries one (the oldest key with it first). */
export interface KeyProduct {
  productId: number;
  name: string;
  keyId: number;
}

/** The product contexts of the account's active keys, in the order the keys were created. */
export async function listKeyProducts(em: EntityManager, accountId: number): Promise<KeyProduct[]> {
  const rows: Array<{ product_id: number; name: string; key_id: number }> = await em.getConnection().execute(
    `select distinct on (p.id) p.id as product_id, p.name, k.id as key_id
     from api_key k join product_context p on p.id = k.product_id
     where k.account_id = ? and k.revoked_at is null
     order by p.id, k.created_at, k.id`,
    [accountId],
  );
  return rows.map((row) => ({ productId: Number(row.product_id), name: row.name, keyId: Number(row.key_id) })).sort((a, b) => a.keyId - b.keyId);
}
