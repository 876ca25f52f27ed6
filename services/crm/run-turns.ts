import type { EntityManager } from '@mikro-orm/postgresql';
import { lockAccount } from '../billing/credits.ts';

// CRM runs waiting their turn (docs/crm.md#runs-waiting-their-turn). A run
// recorded `queued` takes its turn in the database, under the account's lock,
// so that every worker agrees: it becomes `running` while the account runs
// fewer than its cap and no run asked for before it still waits. The run's
// workflow asks again and again (an activity retried by Temporal) until it
// gets it, so a queued run survives any restart and starts by itself.

export type CrmRunTurn = { started: true } | { started: false; place: number; runningIds: string[] };

export async function takeCrmRunTurn(em: EntityManager, input: { runId: string; accountId: number; cap: number; now: Date }): Promise<CrmRunTurn> {
  return em.transactional(async (tx) => {
    await lockAccount(tx, input.accountId, input.now);
    const [run]: Array<{ status: string }> = await tx.execute('select status from crm_sync_run where id = ?', [input.runId]);
    // Running already (a retried attempt whose answer was lost), or ended while it waited: nothing to wait for.
    if (run?.status !== 'queued') return { started: true };
    const running: Array<{ id: string }> = await tx.execute(`select id from crm_sync_run where account_id = ? and status = 'running'`, [input.accountId]);
    const place = await placeOf(tx, input.accountId, input.runId);
    if (place > input.cap - running.length) return { started: false, place, runningIds: running.map((row) => row.id) };
    // From now on `started_at` is when it started, no longer when it was asked for.
    await tx.execute(`update crm_sync_run set status = 'running', started_at = ? where id = ?`, [input.now, input.runId]);
    return { started: true };
  });
}

/** The place of each of the account's queued runs: 1 for the next to start. */
export async function crmRunPlaces(em: EntityManager, accountId: number): Promise<Map<string, number>> {
  const rows: Array<{ id: string; place: number }> = await em.execute(
    `select id, (row_number() over (order by started_at, id))::int as place from crm_sync_run where account_id = ? and status = 'queued'`,
    [accountId],
  );
  return new Map(rows.map((row) => [row.id, row.place]));
}

async function placeOf(em: EntityManager, accountId: number, runId: string): Promise<number> {
  return (await crmRunPlaces(em, accountId)).get(runId) ?? 1;
}

/**
 * A running run whose workflow no longer runs (terminated by an operator, or
 * timed out) would hold its account's turn for ever: recorded failed, so the
 * next queued run goes.
 */
export async function endOrphanedCrmRun(em: EntityManager, runId: string, now: Date): Promise<void> {
  await em.execute(`update crm_sync_run set status = 'failed', reason = 'workflow_ended', finished_at = ? where id = ? and status = 'running'`, [now, runId]);
}
