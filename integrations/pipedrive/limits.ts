// Pipedrive's limits as data (docs/crm-pipedrive.md#limits-we-follow), from
// pipedrive.readme.io/docs/core-api-concepts-rate-limiting:
// - a company's daily token budget (30,000 base tokens × plan multiplier ×
//   seats), shared by its people and every app, reset at the start of the next
//   day; each operation spends its token cost;
// - a burst limit per access token in 2-second windows (OAuth apps: 80 on the
//   smallest plan, up to 480), reported as x-ratelimit-limit / -remaining /
//   -reset (seconds until the window resets);
// - the daily budget's state, reported as x-daily-ratelimit-token-limit /
//   -remaining (the names live answers carry; the page itself names only
//   x-daily-requests-left, the POST/PUT count of api_token requests, which an
//   OAuth app never gets);
// - 429 when either is spent.
import type { BudgetWindow } from '../crm/adapter.ts';

/** Calls per 2-second window, per connected company (the burst limit is per token; one connection holds one token). */
export const PIPEDRIVE_BUDGET_WINDOWS: Record<string, BudgetWindow> = { burst: { windowMs: 2_000, max: 70 } };

export const pipedriveBudgetWindows = (callsPer2s: number): Record<string, BudgetWindow> => ({ burst: { windowMs: 2_000, max: callsPer2s } });

/**
 * Token cost of each operation the adapter makes. API v2: the operation's
 * `x-token-cost` in Pipedrive's v2 OpenAPI file (https://developers.pipedrive.com/docs/api/v2/openapi.yaml,
 * as mirrored in amp-labs/connectors providers/pipedrive/openapi/v2.yaml at 58bfc709).
 * API v1 (its OpenAPI file carries no costs): the rate-limiting page's costs
 * by kind of call: one record 2, a list 20, a create or update 10, a delete 6.
 */
export const PIPEDRIVE_TOKEN_COSTS = {
  /** GET /api/v2/persons (getPersons), with filter_id or ids. */
  listPersons: 10,
  /** PATCH /api/v2/persons/{id} (updatePerson). */
  updatePerson: 5,
  /** GET /v1/users/me (getCurrentUser). */
  currentUser: 2,
  /** GET /v1/personFields (getPersonFields). */
  listPersonFields: 20,
  /** POST /v1/personFields (addPersonField). */
  addPersonField: 10,
  /** DELETE /v1/personFields/{id} (deletePersonField): a duplicate made by a concurrent run. */
  deletePersonField: 6,
  /** GET /v1/filters?type=people (getFilters). */
  listFilters: 20,
  /** POST /v1/filters (addFilter). */
  addFilter: 10,
  /** PUT /v1/filters/{id} (updateFilter). */
  updateFilter: 10,
  /** POST /v1/notes (addNote). */
  addNote: 10,
  /** GET /v1/notes?person_id=… (getNotes). */
  listNotes: 20,
} as const;
export type PipedriveOperation = keyof typeof PIPEDRIVE_TOKEN_COSTS;

export interface RateState {
  /** Calls left in this token's 2-second window, and seconds until it resets. */
  burstRemaining: number | null;
  burstResetMs: number | null;
  /** The company's daily token budget and what is left of it. */
  dailyLimit: number | null;
  dailyRemaining: number | null;
  /** Retry-After, should a gateway send one (Pipedrive documents none). */
  retryAfterMs: number | null;
}

const numberOf = (headers: Headers, name: string) => {
  const value = headers.get(name);
  if (value === null || value.trim() === '') return null;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : null;
};

export function rateStateOf(headers: Headers): RateState {
  const reset = numberOf(headers, 'x-ratelimit-reset');
  const retryAfter = numberOf(headers, 'retry-after');
  return {
    burstRemaining: numberOf(headers, 'x-ratelimit-remaining'),
    burstResetMs: reset === null ? null : Math.max(reset, 0) * 1000,
    dailyLimit: numberOf(headers, 'x-daily-ratelimit-token-limit'),
    dailyRemaining: numberOf(headers, 'x-daily-ratelimit-token-remaining'),
    retryAfterMs: retryAfter === null ? null : Math.max(retryAfter, 0) * 1000,
  };
}

/** Until the daily budget resets: the next midnight UTC (the page says "the start of the next day"). */
export function msUntilDailyReset(now: Date): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return midnight - now.getTime();
}

/**
 * Whether `cost` more tokens may be spent: what remains after them stays at
 * or above the reserve kept for the company's own use. Unknown (no header
 * seen yet): yes.
 */
export function fitsDailyBudget(state: Pick<RateState, 'dailyLimit' | 'dailyRemaining'>, cost: number, reservePercent: number): boolean {
  if (state.dailyRemaining === null) return true;
  const reserve = state.dailyLimit === null ? 0 : Math.ceil((state.dailyLimit * reservePercent) / 100);
  return state.dailyRemaining - cost >= reserve;
}

/** How long a 429 asks us to wait for the burst window: Retry-After, else the window's reset, else one window. */
export const burstWaitMs = (state: RateState) => Math.max(state.retryAfterMs ?? state.burstResetMs ?? 2_000, 250);
