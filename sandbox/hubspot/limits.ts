// HubSpot's per-portal rate limits and the fault injection that bends them.
// developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines:
// public OAuth apps get 110 requests per 10 seconds per installing account,
// search endpoints their own 5 requests per second and no rate-limit headers;
// other answers carry X-HubSpot-RateLimit-Max / -Remaining / -Interval-Milliseconds.
// The 429 body is the one HubSpot sends (errorType RATE_LIMIT, policyName
// TEN_SECONDLY_ROLLING; SECONDLY and DAILY are the other policies).
import { z } from 'zod';

export interface RateLimits {
  /** Requests per `generalWindowMs` per portal, search excluded. */
  general: number;
  generalWindowMs: number;
  /** Search requests per second per portal. */
  searchPerSecond: number;
}

export const DOCUMENTED_LIMITS: RateLimits = { general: 110, generalWindowMs: 10_000, searchPerSecond: 5 };

export const ZHubSpotFaults = z.object({
  /** The next N CRM calls (of `on`) answer 429 with this policy. */
  rateLimitNext: z.number().int().min(0).default(0),
  rateLimitPolicy: z.enum(['TEN_SECONDLY_ROLLING', 'SECONDLY', 'DAILY']).default('TEN_SECONDLY_ROLLING'),
  /** A Retry-After (seconds) on those 429s. HubSpot documents none, but a client must honour one (a gateway in front may send it). */
  rateLimitRetryAfterSeconds: z.number().int().min(1).nullable().default(null),
  /** The next N CRM calls (of `on`) answer this 5xx. */
  serverErrorNext: z.number().int().min(0).default(0),
  serverErrorStatus: z.number().int().min(500).max(599).default(502),
  /** Calls (of `on`) hang this long before they are answered: a HubSpot slow enough that a worker can die with a call in flight. */
  stallMs: z.number().int().min(0).default(0),
  /** The next N calls (of `on`) are carried out, but the connection drops before the answer: a timeout after HubSpot did the work. */
  answerLostNext: z.number().int().min(0).default(0),
  /** Which calls the counters above and the stall hit. */
  on: z.enum(['all', 'search', 'write', 'note', 'properties', 'read', 'token']).default('all'),
  /** Writes become visible to search only after this long, as HubSpot's index lags. */
  searchLagMs: z.number().int().min(0).default(0),
  /** Refreshing hands out a new refresh token and retires the old one. */
  rotateRefreshTokens: z.boolean().default(false),
  /** Lifetime of new access tokens (HubSpot: 1800). */
  accessTokenTtlSeconds: z.number().int().min(1).default(1800),
});
export type HubSpotFaults = z.infer<typeof ZHubSpotFaults>;

export type CallKind = 'search' | 'write' | 'note' | 'properties' | 'read' | 'token';

export function createLimiter(limits: RateLimits) {
  const general = new Map<number, number[]>();
  const search = new Map<number, number[]>();
  const recent = (map: Map<number, number[]>, portalId: number, windowMs: number, now: number) => {
    const kept = (map.get(portalId) ?? []).filter((at) => at > now - windowMs);
    map.set(portalId, kept);
    return kept;
  };
  return {
    limits,
    /** Counts the call; null when allowed, else the policy it broke. */
    take(portalId: number, isSearch: boolean, now = Date.now()): { allowed: boolean; policy: 'TEN_SECONDLY_ROLLING' | 'SECONDLY'; remaining: number } {
      if (isSearch) {
        const calls = recent(search, portalId, 1_000, now);
        if (calls.length >= limits.searchPerSecond) return { allowed: false, policy: 'SECONDLY', remaining: 0 };
        calls.push(now);
        return { allowed: true, policy: 'SECONDLY', remaining: limits.searchPerSecond - calls.length };
      }
      const calls = recent(general, portalId, limits.generalWindowMs, now);
      if (calls.length >= limits.general) return { allowed: false, policy: 'TEN_SECONDLY_ROLLING', remaining: 0 };
      calls.push(now);
      return { allowed: true, policy: 'TEN_SECONDLY_ROLLING', remaining: limits.general - calls.length };
    },
    reset() {
      general.clear();
      search.clear();
    },
  };
}

/** The 429 body by policy; the texts the SDK's retry looks for ("ten_secondly_rolling", "You have reached your secondly limit."). */
export function rateLimitBody(policy: 'TEN_SECONDLY_ROLLING' | 'SECONDLY' | 'DAILY', correlationId: string) {
  const message =
    policy === 'SECONDLY' ? 'You have reached your secondly limit.' : policy === 'DAILY' ? 'You have reached your daily limit.' : 'You have reached your ten_secondly_rolling limit.';
  return { status: 'error', message, errorType: 'RATE_LIMIT', correlationId, policyName: policy, groupName: 'sandbox-app' };
}
