// HubSpot's limits are per portal (installing account), search apart from
// everything else: 110 calls per 10 s and 5 searches per second
// (developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines).
// The SDK has no limiter unless told, and its limiter is one per process for
// every portal, so the client takes every call from the portal's budget
// shared by every process (services/crm/portal-budget.ts) and reports every
// 429 to it (docs/crm.md#rate-limits).
import type { BudgetWindow } from '../crm/adapter.ts';

export type CallKind = 'general' | 'search';

/** Our budget, set below HubSpot's documented limits (HUBSPOT_MAX_CALLS_PER_10S, HUBSPOT_MAX_SEARCHES_PER_SECOND). */
export const hubspotBudgetWindows = (limits: { callsPer10s: number; searchesPerSecond: number }): Record<CallKind, BudgetWindow> => ({
  general: { windowMs: 10_000, max: limits.callsPer10s },
  search: { windowMs: 1_000, max: limits.searchesPerSecond },
});
