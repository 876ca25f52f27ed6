import type { EntityManager } from '@mikro-orm/postgresql';
import { PROSPECT_TTL_DAYS, freshSince } from '../../domain/enrichment/cache-policy.ts';

// docs/decisions.md#the-estimate: estimated_seconds is the median of the account's recent real
// completion times, else the global median, else 30; 2 for a likely cache hit.
export const DEFAULT_ESTIMATE_SECONDS = 30;
export const CACHE_HIT_ESTIMATE_SECONDS = 2;
const RECENT_JOBS = 20;

// The medians of the account's and of everyone's recent completion times.
const ACCOUNT_MEDIAN_SQL = `select percentile_cont(0.5) within group (order by secs)
       from (select extract(epoch from completed_at - submitted_at) as secs from research_job
              where account_id = ? and status = 'completed' order by submitted_at desc limit ${RECENT_JOBS}) a`;
const GLOBAL_MEDIAN_SQL = `select percentile_cont(0.5) within group (order by secs)
       from (select extract(epoch from completed_at - submitted_at) as secs from research_job
              where status = 'completed' order by submitted_at desc limit ${RECENT_JOBS * 5}) g`;

function secondsOf(medians: { account_median: number | null; global_median: number | null }): number {
  const median = medians.account_median ?? medians.global_median;
  return median == null ? DEFAULT_ESTIMATE_SECONDS : Math.max(1, Math.ceil(Number(median)));
}

export async function medianCompletionSeconds(em: EntityManager, accountId: number): Promise<number> {
  const rows: Array<{ account_median: number | null; global_median: number | null }> = await em.getConnection().execute(
    `select (${ACCOUNT_MEDIAN_SQL}) as account_median, (${GLOBAL_MEDIAN_SQL}) as global_median`,
    [accountId],
  );
  return secondsOf(rows[0]!);
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
  // One statement (a statement fewer per POST); CASE leaves the medians unread for a likely hit.
  const rows: Array<{ is_cached: boolean; account_median: number | null; global_median: number | null }> = await em.getConnection().execute(
    `with cached as (
       select exists(select 1 from prospect where account_id = ? and product_id = ? and email = ?
                        and fetched_at > ? and insights is not null) as is_cached
     )
     select is_cached,
            case when is_cached then null else (${ACCOUNT_MEDIAN_SQL}) end as account_median,
            case when is_cached then null else (${GLOBAL_MEDIAN_SQL}) end as global_median
       from cached`,
    [apiKey.accountId, apiKey.productId, email, freshSince(PROSPECT_TTL_DAYS, now), apiKey.accountId],
  );
  const row = rows[0]!;
  return row.is_cached ? CACHE_HIT_ESTIMATE_SECONDS : secondsOf(row);
}
