// One HubSpot budget per portal, whatever the number of processes that call
// it (docs/crm.md#rate-limits): the API's preview and every CRM worker, on
// one machine or many, take each call from one row per portal and kind in
// PostgreSQL. A single statement, holding that row's lock, counts the calls
// of the last window by the database's clock and takes one if there is room
// and no 429 holds the portal off; otherwise it says how long until there
// may be. Each process asks with one waiter per portal and kind at a time,
// the others queued behind it in arrival order, so a full window is asked
// about once per process as it frees up, not once per waiting call.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CallKind, PortalThrottle } from '../integrations/hubspot/throttle.ts';

/**
 * A call is counted when it is taken; HubSpot counts it when it arrives, a
 * little later: the window is this much longer than HubSpot's, so that a call
 * taken just after ours ends does not land inside HubSpot's.
 */
export const BUDGET_MARGIN_MS = 150;

export const budgetWindowMs = (kind: CallKind) => (kind === 'search' ? 1_000 : 10_000) + BUDGET_MARGIN_MS;

export interface PortalBudgetLimits {
  callsPer10s: number;
  searchesPerSecond: number;
}

/**
 * Takes one call of `kind` from the portal's budget when the window has room
 * and no backoff is running; else how long until one may fit, in ms.
 */
export async function takePortalCall(em: EntityManager, portalId: number, kind: CallKind, max: number): Promise<{ taken: boolean; waitMs: number }> {
  const windowMs = budgetWindowMs(kind);
  for (;;) {
    // `now` is read once the row is locked, so the calls of every process are stamped in the order they were taken.
    const [row]: Array<{ taken: boolean; wait_ms: string }> = await em.execute(
      `with locked as (
         select held_until, calls from crm_portal_budget where portal_id = ? and kind = ? for update
       ), seen as (
         select now, held_until, array(select call from unnest(calls) as call where call > now - make_interval(secs => ? / 1000.0) order by call) as recent
         from (select clock_timestamp() as now, held_until, calls from locked) as current
       ), decided as (
         select now, held_until, recent, held_until <= now and cardinality(recent) < ? as taken from seen
       ), counted as (
         update crm_portal_budget set calls = case when decided.taken then decided.recent || decided.now else decided.recent end
         from decided where portal_id = ? and kind = ?
       )
       select taken, ceil(extract(epoch from greatest(now, held_until, recent[cardinality(recent) - ? + 1] + make_interval(secs => ? / 1000.0)) - now) * 1000) as wait_ms
       from decided`,
      [portalId, kind, windowMs, max, portalId, kind, max, windowMs],
    );
    if (row) return { taken: row.taken, waitMs: row.taken ? 0 : Math.max(1, Number(row.wait_ms)) };
    // The portal's first call of this kind: its row, then the same question.
    await em.execute('insert into crm_portal_budget (portal_id, kind) values (?, ?) on conflict do nothing', [portalId, kind]);
  }
}

/** HubSpot answered 429: no process calls the portal, of any kind, for `ms` from now (by the database's clock). */
export async function holdOffPortal(em: EntityManager, portalId: number, ms: number): Promise<void> {
  // Both rows in one fixed order, so two holds never wait on each other crosswise.
  await em.execute(
    `insert into crm_portal_budget as budget (portal_id, kind, held_until)
     select ?, kind, clock_timestamp() + make_interval(secs => ? / 1000.0) from unnest(array['general', 'search']) as kind
     on conflict (portal_id, kind) do update set held_until = greatest(budget.held_until, excluded.held_until)`,
    [portalId, ms],
  );
}

export function createPortalBudget(deps: { em: () => EntityManager; limits: PortalBudgetLimits }): PortalThrottle {
  const queues = new Map<string, Promise<void>>();

  async function takeWhenFree(portalId: number, kind: CallKind): Promise<void> {
    const max = kind === 'search' ? deps.limits.searchesPerSecond : deps.limits.callsPer10s;
    for (;;) {
      const { taken, waitMs } = await takePortalCall(deps.em(), portalId, kind, max);
      if (taken) return;
      await new Promise<void>((resolve) => setTimeout(resolve, waitMs));
    }
  }

  return {
    acquire(portalId, kind) {
      const key = `${portalId}:${kind}`;
      const turn = (queues.get(key) ?? Promise.resolve()).then(() => takeWhenFree(portalId, kind));
      queues.set(key, turn.catch(() => {}));
      return turn;
    },
    holdOff: (portalId, _kind, ms) => holdOffPortal(deps.em(), portalId, ms),
  };
}
