// Pipedrive's limits and the faults that bend them, from
// pipedrive.readme.io/docs/core-api-concepts-rate-limiting: a company's daily
// token budget (30,000 base tokens × plan multiplier × seats), each request
// spending its operation's token cost; a burst limit per access token in
// 2-second windows (OAuth: 80 requests on the smallest plan); answers carry
// x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset (seconds) and the
// daily budget as x-daily-ratelimit-token-limit / -remaining; 429 when spent.
// Token costs: API v2 from `x-token-cost` in Pipedrive's v2 OpenAPI file
// (developers.pipedrive.com/docs/api/v2/openapi.yaml); API v1 by kind from the
// rate-limiting page (one record 2, a list 20, a create or update 10, a delete 6).
import { z } from 'zod';

export interface Limits {
  burstPer2s: number;
  dailyTokens: number;
}

/** The smallest plan with one seat. */
export const DOCUMENTED_LIMITS: Limits = { burstPer2s: 80, dailyTokens: 30_000 };

/** Token cost by method and path pattern. */
const COSTS: Array<[string, RegExp, number]> = [
  ['GET', /^\/api\/v2\/persons$/, 10],
  ['GET', /^\/api\/v2\/persons\/\d+$/, 1],
  ['PATCH', /^\/api\/v2\/persons\/\d+$/, 5],
  ['GET', /^\/api\/v1\/users\/me$/, 2],
  ['GET', /^\/api\/v1\/(personFields|filters|notes)$/, 20],
  ['GET', /^\/api\/v1\/(personFields|filters|notes)\/\d+$/, 2],
  ['POST', /^\/api\/v1\/(personFields|filters|notes)$/, 10],
  ['PUT', /^\/api\/v1\/(personFields|filters|notes)\/\d+$/, 10],
  ['DELETE', /^\/api\/v1\/(personFields|filters|notes)\/\d+$/, 6],
];

export const tokenCostOf = (method: string, path: string) => COSTS.find(([m, pattern]) => m === method && pattern.test(path))?.[2] ?? 10;

export const ZPipedriveFaults = z.object({
  /** The next N API calls (of `on`) answer 429 for the burst window. */
  rateLimitNext: z.number().int().min(0).default(0),
  /** Retry-After (seconds) on those 429s; Pipedrive documents none. */
  rateLimitRetryAfterSeconds: z.number().int().min(1).nullable().default(null),
  /** The next N API calls (of `on`) answer this 5xx. */
  serverErrorNext: z.number().int().min(0).default(0),
  serverErrorStatus: z.number().int().min(500).max(599).default(502),
  /** The next N calls (of `on`) are carried out, but the connection drops before the answer. */
  answerLostNext: z.number().int().min(0).default(0),
  /** Which calls the counters above hit. */
  on: z.enum(['all', 'persons', 'fields', 'filters', 'notes', 'users']).default('all'),
  /** Lifetime of new access tokens (Pipedrive: 3600 s). */
  accessTokenTtlSeconds: z.number().int().min(1).default(3600),
});
export type PipedriveFaults = z.infer<typeof ZPipedriveFaults>;

export function createLimiter(limits: Limits) {
  const burst = new Map<string, number[]>();
  let day = '';
  const spent = new Map<number, number>();
  return {
    limits,
    /** Counts one call of `token` into its 2-second window; its headers and whether it was allowed. */
    takeBurst(token: string, now = Date.now()) {
      const calls = (burst.get(token) ?? []).filter((at) => at > now - 2_000);
      burst.set(token, calls);
      const allowed = calls.length < limits.burstPer2s;
      if (allowed) calls.push(now);
      const reset = calls.length > 0 ? Math.max(1, Math.ceil((calls[0]! + 2_000 - now) / 1000)) : 2;
      return { allowed, headers: { 'x-ratelimit-limit': String(limits.burstPer2s), 'x-ratelimit-remaining': String(Math.max(0, limits.burstPer2s - calls.length)), 'x-ratelimit-reset': String(reset) } };
    },
    /** Spends `cost` of the company's day (reset at midnight UTC); not allowed once spent. */
    spendDaily(companyId: number, cost: number, now = new Date()) {
      const today = now.toISOString().slice(0, 10);
      if (today !== day) {
        day = today;
        spent.clear();
      }
      const used = spent.get(companyId) ?? 0;
      const allowed = used < limits.dailyTokens;
      if (allowed) spent.set(companyId, used + cost);
      const remaining = Math.max(0, limits.dailyTokens - (spent.get(companyId) ?? 0));
      return { allowed, headers: { 'x-daily-ratelimit-token-limit': String(limits.dailyTokens), 'x-daily-ratelimit-token-remaining': String(remaining) } };
    },
    /** Sets what a company has spent today (tests of the reserve). */
    setSpent(companyId: number, tokens: number, now = new Date()) {
      day = now.toISOString().slice(0, 10);
      spent.set(companyId, tokens);
    },
    reset() {
      burst.clear();
      spent.clear();
    },
  };
}
