import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Accounts whose `credits_used` is not the running sum of their ledger's
 * `used_delta` (every change of it writes its entry: services/billing/credits.ts,
 * stripe-sync.ts); anything else is a lost or doubled credit.
 */
export async function accountsWithLedgerDrift(em: EntityManager): Promise<number> {
  const [row]: Array<{ n: number }> = await em.getConnection().execute(
    `select count(*)::int as n
       from account a
       left join (select account_id, sum(used_delta) as used from credit_ledger_entry group by account_id) l on l.account_id = a.id
      where a.credits_used <> coalesce(l.used, 0)`,
  );
  return row?.n ?? 0;
}
