import type pg from 'pg';

export interface LedgerSummary {
  jobs: number;
  completed: number;
  failed: number;
  /** Jobs still `queued` or `processing`. */
  running: number;
  refunds: number;
  creditsUsed: number;
}

export interface InvariantReport {
  summary: LedgerSummary;
  /** Each broken promise, in words; empty when all hold. */
  problems: string[];
}

/**
 * The promises every case must leave intact for its account (docs/api.md#job-states,
 * docs/api.md#refunds, docs/decisions.md#job-states-time-and-money):
 * - `credits_used` = consume rows − refund rows that gave a credit back, in the cycle;
 * - no job still `queued`/`processing` once the case has settled;
 * - exactly one consume row per job, and none without a job;
 * - every `failed` job (internal_error/timeout) has exactly one refund row, a
 *   `completed` job none, and no job more than one.
 */
export async function checkInvariants(sql: pg.Pool, accountId: number): Promise<InvariantReport> {
  const problems: string[] = [];
  const [account] = await query<{ credits_used: number; cycle_start: Date }>(sql, 'select credits_used, cycle_start from account where id = $1', [accountId]);
  if (!account) return { summary: emptySummary(), problems: [`account ${accountId} is missing`] };

  const [ledger] = await query<{ consumes: string; credit_refunds: string }>(
    sql,
    `select count(*) filter (where kind = 'consume') as consumes,
            count(*) filter (where kind = 'refund' and used_delta = -1) as credit_refunds
       from credit_ledger_entry where account_id = $1 and cycle_start = $2`,
    [accountId, account.cycle_start],
  );
  const expectedUsed = Number(ledger.consumes) - Number(ledger.credit_refunds);
  if (account.credits_used !== expectedUsed) {
    problems.push(`credits_used is ${account.credits_used}, the ledger says ${ledger.consumes} consumed − ${ledger.credit_refunds} refunded = ${expectedUsed}`);
  }

  const jobs = await query<{ id: string; status: string; error: string | null; consumes: string; refunds: string }>(
    sql,
    `select j.id, j.status, j.error,
            (select count(*) from credit_ledger_entry l where l.research_id = j.id and l.kind = 'consume') as consumes,
            (select count(*) from credit_ledger_entry l where l.research_id = j.id and l.kind = 'refund') as refunds
       from research_job j where j.account_id = $1`,
    [accountId],
  );
  const summary: LedgerSummary = { jobs: jobs.length, completed: 0, failed: 0, running: 0, refunds: 0, creditsUsed: account.credits_used };
  const bad = new Map<string, string[]>();
  const note = (kind: string, id: string) => bad.set(kind, [...(bad.get(kind) ?? []), id]);
  for (const job of jobs) {
    const [consumes, refunds] = [Number(job.consumes), Number(job.refunds)];
    summary.refunds += refunds;
    if (consumes !== 1) note(`jobs with ${consumes} consume rows (want 1)`, job.id);
    if (refunds > 1) note('jobs refunded more than once', job.id);
    if (job.status === 'completed') {
      summary.completed += 1;
      if (refunds !== 0) note('completed jobs with a refund', job.id);
    } else if (job.status === 'failed') {
      summary.failed += 1;
      if (job.error !== 'internal_error' && job.error !== 'timeout') note(`failed jobs with error ${job.error}`, job.id);
      else if (refunds !== 1) note('failed jobs without a refund', job.id);
    } else {
      summary.running += 1;
      note(`jobs still ${job.status}`, job.id);
    }
  }
  const [orphans] = await query<{ count: string }>(
    sql,
    `select count(*) from credit_ledger_entry l
      where l.account_id = $1 and l.kind in ('consume', 'refund')
        and not exists (select 1 from research_job j where j.id = l.research_id)`,
    [accountId],
  );
  if (Number(orphans.count) > 0) problems.push(`${orphans.count} consume/refund rows belong to no job`);
  for (const [kind, ids] of bad) problems.push(`${ids.length} ${kind}: ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`);
  return { summary, problems };
}

/** Job states of one account, e.g. `{ completed: 10, processing: 2 }`. */
export async function jobCounts(sql: pg.Pool, accountId: number): Promise<Record<string, number>> {
  const rows = await query<{ status: string; count: string }>(sql, 'select status, count(*) from research_job where account_id = $1 group by status', [accountId]);
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)]));
}

/** A query that rides out a PostgreSQL restart: the checks must not fail for the fault they observe. */
export async function query<T>(sql: pg.Pool, text: string, params: unknown[] = [], timeoutMs = 60_000): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return (await sql.query(text, params)).rows as T[];
    } catch (error) {
      if (!isTransient(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Connection refused or reset, server shutting down or starting up (SQLSTATE classes 08 and 57). */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== 'string' || /^(08|57|E[A-Z]+)/.test(code);
}

function emptySummary(): LedgerSummary {
  return { jobs: 0, completed: 0, failed: 0, running: 0, refunds: 0, creditsUsed: 0 };
}
