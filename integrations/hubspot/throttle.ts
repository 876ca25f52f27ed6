// HubSpot's limits are per portal (installing account), search apart from
// everything else: 110 calls per 10 s and 5 searches per second
// (developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines).
// The SDK has no limiter unless told, and its limiter is one per process for
// every portal, so the client waits on this seam before every call and
// reports every 429 to it. Every process that calls a portal (the API, any
// number of CRM workers) shares one budget: services/crm-portal-budget.ts
// keeps it in PostgreSQL (docs/crm.md#rate-limits).

export type CallKind = 'general' | 'search';

export interface PortalThrottle {
  /** Resolves when one more call of `kind` fits into the portal's budget and no backoff holds it, and counts it. */
  acquire(portalId: number, kind: CallKind): Promise<void>;
  /** HubSpot said 429: no call of any kind goes to this portal, from any process, for `ms`. */
  holdOff(portalId: number, kind: CallKind, ms: number): Promise<void>;
}
