import type { EntityManager } from '@mikro-orm/postgresql';
import type { IAccount } from '../../db/entities/account.ts';
import type { CreditEntryKind, Usage, UsageCycle } from '../../domain/dashboard/replies.ts';
import { creditStatement } from '../accounts/accounts.ts';
import { iso } from '../accounts/dashboard-keys.ts';
import type { ResearchSource } from '../../domain/research/fanout.ts';

const LEDGER_ROWS = 200;
const CYCLES_LISTED = 12;

/** The cycles the ledger knows, newest first: each ends where the next began (an upgrade through Checkout starts one early). */
async function cyclesOf(em: EntityManager, account: IAccount, current: { start: string; end: string }): Promise<UsageCycle[]> {
  const rows = await em.getConnection().execute<Array<{ cycle_start: Date | string }>>(
    `select distinct cycle_start from credit_ledger_entry where account_id = ? and cycle_start < ? order by cycle_start desc limit ${CYCLES_LISTED - 1}`,
    [account.id, account.cycleStart],
  );
  const cycles: UsageCycle[] = [{ ...current, isCurrent: true }];
  for (const row of rows) cycles.push({ start: iso(row.cycle_start)!, end: cycles.at(-1)!.start, isCurrent: false });
  return cycles;
}

/** Usage of the current cycle, or of an earlier one named by its start (`cycleStart`, as listed in `cycles`). */
export async function usageOfCycle(em: EntityManager, account: IAccount, cycleStart?: string): Promise<Usage> {
  const statement = creditStatement(account);
  const cycles = await cyclesOf(em, account, { start: statement.cycle_start, end: statement.cycle_end });
  const cycle = cycles.find((candidate) => candidate.start === cycleStart) ?? cycles[0]!;
  const connection = em.getConnection();
  const [perDay, ledger] = await Promise.all([
    // Summed per day and key first, labelled after: the labels' joins then run once per key and day, not per credit.
    connection.execute<Array<{ day: string; api_key_id: number | null; label: string | null; credits: number }>>(
      `select d.day, d.api_key_id, coalesce(p.name || ' (' || k.display_prefix || '…)', k.display_prefix) as label, d.credits
       from (select to_char(l.created_at at time zone 'UTC', 'YYYY-MM-DD') as day, j.api_key_id, sum(l.used_delta)::int as credits
             from credit_ledger_entry l
             left join research_job j on j.id = l.research_id
             where l.account_id = ? and l.cycle_start = ? and l.kind in ('consume', 'refund')
             group by 1, 2) d
       left join api_key k on k.id = d.api_key_id
       left join product_context p on p.id = k.product_id
       order by d.day`,
      [account.id, cycle.isCurrent ? account.cycleStart : new Date(cycle.start)],
    ),
    connection.execute<Array<Record<string, unknown>>>(
      `select l.id, l.created_at, l.kind, l.used_delta, l.limit_after, l.research_id, l.note, j.source
       from credit_ledger_entry l left join research_job j on j.id = l.research_id
       where l.account_id = ? order by l.created_at desc, l.id desc limit ${LEDGER_ROWS}`,
      [account.id],
    ),
  ]);
  const keys = new Map<string, { id: number | null; label: string }>();
  const days = new Map<string, { day: string; byKey: Record<string, number>; total: number }>();
  for (const day of cycleDays(new Date(cycle.start), new Date(cycle.end))) days.set(day, { day, byKey: {}, total: 0 });
  for (const row of perDay) {
    const keyName = row.api_key_id === null ? 'none' : String(row.api_key_id);
    keys.set(keyName, { id: row.api_key_id, label: row.label ?? 'deleted key' });
    const entry = days.get(row.day);
    if (!entry) continue;
    entry.byKey[keyName] = (entry.byKey[keyName] ?? 0) + row.credits;
    entry.total += row.credits;
  }
  return {
    statement,
    days: [...days.values()],
    keys: [...keys.entries()].map(([, key]) => key),
    cycle,
    cycles,
    ledger: ledger.map((row) => ({
      id: Number(row.id),
      at: iso(row.created_at)!,
      kind: row.kind as CreditEntryKind,
      usedDelta: Number(row.used_delta),
      limitAfter: Number(row.limit_after),
      researchId: (row.research_id as string | null) ?? null,
      note: (row.note as string | null) ?? null,
      source: (row.source as ResearchSource | null) ?? null,
    })),
  };
}

/** Every UTC day from the cycle's start up to (not including) its end. */
function cycleDays(start: Date, end: Date): string[] {
  const days: string[] = [];
  for (let t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()); t < end.getTime(); t += 86_400_000) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}
