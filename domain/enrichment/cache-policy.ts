// Freshness of cached enrichment data (docs/api.md#freshness). Within its refresh window a
// part is served from the cache; after it, the stored record is overwritten.

export const PROSPECT_TTL_DAYS = 30;
export const COMPANY_TTL_DAYS = 90;
export const DECISION_MAKERS_TTL_DAYS = 60;

const DAY_MS = 24 * 60 * 60 * 1000;

export function isFresh(fetchedAt: Date | null | undefined, ttlDays: number, now: Date): fetchedAt is Date {
  return fetchedAt != null && now.getTime() - fetchedAt.getTime() < ttlDays * DAY_MS;
}

/** Whole days since `fetchedAt` (`_meta.prospect.cache_age_days`). */
export function ageInDays(fetchedAt: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - fetchedAt.getTime()) / DAY_MS));
}

export function freshSince(ttlDays: number, now: Date): Date {
  return new Date(now.getTime() - ttlDays * DAY_MS);
}
