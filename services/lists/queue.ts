import type { EntityManager } from '@mikro-orm/postgresql';
import { MAX_RUNNING_LISTS } from '../../domain/lists/lists.ts';
import { lockAccount } from '../billing/credits.ts';

// Lists waiting their turn (docs/lists.md#lists-waiting-their-turn). An
// account's lists beyond its plan's number running at once wait `queued`,
// rows written, in the order they were started. The turn is taken in the
// database, never only in a process: the transaction that ends a running list
// promotes the account's oldest queued one, and the worker's list relay
// promotes again every few seconds (an upgrade, a crash between the end and
// the promotion), then starts the promoted list's workflow as it starts any
// running list whose workflow is not recorded.

/**
 * Under the account's lock (taken here, as a list's start and Cancel take it):
 * the account's oldest queued lists become `running` while it runs fewer than
 * its plan allows; an account being deleted has its queued lists cancelled,
 * their rows not charged. Returns the ids of the lists promoted.
 */
export async function promoteQueuedLists(tx: EntityManager, accountId: number, now: Date): Promise<string[]> {
  const account = await lockAccount(tx, accountId, now);
  if (account.deletionRequestedAt) {
    await tx.execute(
      `update prospect_list_row set status = 'not_charged' where status = 'pending' and list_id in (select id from prospect_list where account_id = ? and status = 'queued')`,
      [accountId],
    );
    await tx.execute(`update prospect_list set status = 'cancelled', stopped_reason = 'account_deleted', finished_at = ? where account_id = ? and status = 'queued'`, [now, accountId]);
    return [];
  }
  const [{ running }]: Array<{ running: number }> = await tx.execute(
    `select count(*)::int as running from prospect_list where account_id = ? and status in ('running', 'cancelling')`,
    [accountId],
  );
  const room = MAX_RUNNING_LISTS[account.plan] - running;
  if (room <= 0) return [];
  const promoted: Array<{ id: string }> = await tx.execute(
    `update prospect_list set status = 'running', started_at = ?
     where id in (select id from prospect_list where account_id = ? and status = 'queued' order by queued_at, id limit ?)
     returning id`,
    [now, accountId, room],
  );
  return promoted.map((row) => row.id);
}

/**
 * The relay's pass: every account with a queued list gets its turn checked, in
 * its own transaction, oldest waiting first. Returns the lists promoted.
 */
export async function promoteAllQueuedLists(em: EntityManager, now: Date, limit = 50): Promise<string[]> {
  const accounts: Array<{ account_id: number }> = await em.execute(
    `select account_id from prospect_list where status = 'queued' group by account_id order by min(queued_at) limit ?`,
    [limit],
  );
  const promoted: string[] = [];
  for (const { account_id: accountId } of accounts) {
    promoted.push(...(await em.fork().transactional((tx) => promoteQueuedLists(tx, accountId, now))));
  }
  return promoted;
}

/** The place of each of the account's queued lists: 1 for the next to run. */
export async function queuePlaces(em: EntityManager, accountId: number): Promise<Map<string, number>> {
  const rows: Array<{ id: string; place: number }> = await em.execute(
    `select id, (row_number() over (order by queued_at, id))::int as place from prospect_list where account_id = ? and status = 'queued'`,
    [accountId],
  );
  return new Map(rows.map((row) => [row.id, row.place]));
}
