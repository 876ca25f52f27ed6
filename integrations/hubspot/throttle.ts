// HubSpot's limits are per portal (installing account), search apart from
// everything else: 110 calls per 10 s and 5 searches per second
// (developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines).
// The SDK has no limiter unless told, and its limiter is one per process for
// every portal (docs/crm.md#rate-limits), so this keeps one sliding window per
// portal and kind, a little under the documented figures. A 429 closes the
// portal's window for as long as HubSpot asks.

export type CallKind = 'general' | 'search';

export interface PortalThrottle {
  /** Resolves when one more call of `kind` fits into the portal's window, and counts it. */
  acquire(portalId: number, kind: CallKind): Promise<void>;
  /** HubSpot said 429: nothing of `kind` goes to this portal for `ms`. */
  holdOff(portalId: number, kind: CallKind, ms: number): void;
}

export function createPortalThrottle(limits: { callsPer10s: number; searchesPerSecond: number }, clock: { now(): number; sleep(ms: number): Promise<void> } = realClock): PortalThrottle {
  const windows = new Map<string, { calls: number[]; heldUntil: number; queue: Promise<void> }>();
  // A call is counted when it leaves; HubSpot counts it when it arrives, a little later: the margin keeps a
  // call sent just after our window ends from landing inside HubSpot's.
  const budget = (kind: CallKind) => (kind === 'search' ? { max: limits.searchesPerSecond, windowMs: 1_000 + MARGIN_MS } : { max: limits.callsPer10s, windowMs: 10_000 + MARGIN_MS });
  const windowOf = (portalId: number, kind: CallKind) => {
    const key = `${portalId}:${kind}`;
    let window = windows.get(key);
    if (!window) windows.set(key, (window = { calls: [], heldUntil: 0, queue: Promise.resolve() }));
    return window;
  };

  return {
    acquire(portalId, kind) {
      const window = windowOf(portalId, kind);
      const { max, windowMs } = budget(kind);
      // One waiter at a time per window, in arrival order: no thundering herd when it frees up.
      const turn = window.queue.then(async () => {
        for (;;) {
          const now = clock.now();
          window.calls = window.calls.filter((at) => at > now - windowMs);
          const wait = Math.max(window.heldUntil - now, window.calls.length >= max ? window.calls[0]! + windowMs - now : 0);
          if (wait <= 0) {
            window.calls.push(now);
            return;
          }
          await clock.sleep(wait);
        }
      });
      window.queue = turn.catch(() => {});
      return turn;
    },
    holdOff(portalId, kind, ms) {
      const window = windowOf(portalId, kind);
      window.heldUntil = Math.max(window.heldUntil, clock.now() + ms);
    },
  };
}

const MARGIN_MS = 150;

const realClock = { now: () => Date.now(), sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
