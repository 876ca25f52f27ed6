import type { EntityManager } from '@mikro-orm/postgresql';
import { PROSPECT_TTL_DAYS, freshSince } from '../domain/cache-policy.ts';

// DECISIONS.md: estimated_seconds is the median of the account's recent real
// completion times, else the global median, else 30; 2 for a likely cache hit.
export const DEFAULT_ESTIMATE_SECONDS = 30;
export const CACHE_HIT_ESTIMATE_SECONDS = 2;
const RECENT_JOBS = 20;

export async function medianCompletionSeconds(em: EntityManager, accountId: number): Promise<number> {
  const rows: Array<{ scope: string; median: number | null }> = await em.getConnection().execute(
    `select 'account' as scope, percentile_cont(0.5) within group (order by secs) as median
       from (select extract(epoch from completed_at - submitted_at) as secs from research_job
              where account_id = ? and status = 'completed' order by submitted_at desc limit ${RECENT_JOBS}) a
     union all
     select 'global', percentile_cont(0.5) within group (order by secs)
       from (select extract(epoch from completed_at - submitted_at) as secs from research_job
              where status = 'completed' order by submitted_at desc limit ${RECENT_JOBS * 5}) g`,
    [accountId],
  );
  const account = rows.find((row) => row.scope === 'account')?.median;
  const global = rows.find((row) => row.scope === 'global')?.median;
  const median = account ?? global;
  return median == null ? DEFAULT_ESTIMATE_SECONDS : Math.max(1, Math.ceil(Number(median)));
}

/** Seconds still to wait for a running job, never below 1. */
export function remainingSeconds(medianSeconds: number, submittedAt: Date, now: Date): number {
  const elapsed = (now.getTime() - submittedAt.getTime()) / 1000;
  return Math.max(1, Math.ceil(medianSeconds - elapsed));
}

/**
 * The 202's estimate: 2 seconds when a fresh prospect with insights is cached
 * for this (e-mail, account, product), else the median of recent jobs.
 */
export async function estimateForNewJob(
  em: EntityManager,
  apiKey: { accountId: number; productId: number | null },
  email: string,
  now: Date,
): Promise<number> {
  const rows: unknown[] = await em.getConnection().execute(
    `select 1 from prospect where account_id = ? and product_id = ? and email = ?
        and fetched_at > ? and insights is not null limit 1`,
    [apiKey.accountId, apiKey.productId, email, freshSince(PROSPECT_TTL_DAYS, now)],
  );
  return rows.length > 0 ? CACHE_HIT_ESTIMATE_SECONDS : medianCompletionSeconds(em, apiKey.accountId);
}
