// One budget per connected portal, whatever the number of processes that call
// it (docs/crm.md#rate-limits): the API's preview and every CRM worker, on
// one machine or many, take each call from one row per CRM, portal and kind
// of call in PostgreSQL. A single statement, holding that row's lock, counts
// the calls of the kind's window by the database's clock and takes one if
// there is room and no hold-off (a 429, an allowance nearly spent) is
// running; otherwise it says how long until there may be. Each process asks
// with one waiter per portal and kind at a time, the others queued behind it
// in arrival order, so a full window is asked about once per process as it
// frees up, not once per waiting call. Each CRM says its windows
// (HubSpot: 10 s and a search second; Pipedrive: 2-second bursts;
// Salesforce: a pace below its 24-hour allowance).
import type { EntityManager } from '@mikro-orm/postgresql';
import { CRM_PROVIDER_LABELS, type BudgetWindow, type CrmCallBudget, type CrmProvider } from '../../integrations/crm/adapter.ts';
import { CrmUnavailable } from '../../integrations/crm/errors.ts';

/**
 * A call is counted when it is taken; the CRM counts it when it arrives, a
 * little later: each window is this much longer than the CRM's, so that a
 * call taken just after ours ends does not land inside the CRM's.
 */
export const BUDGET_MARGIN_MS = 150;

export interface PortalKey {
  provider: CrmProvider;
  portalId: string;
}

/**
 * Takes one call of `kind` from the portal's budget when its window has room
 * and no hold-off is running; else how long until one may fit, in ms.
 */
export async function takePortalCall(
  em: EntityManager, portal: PortalKey, kind: string, window: BudgetWindow,
): Promise<{ taken: boolean; waitMs: number; holdOff: { reason: string; until: Date } | null }> {
  const windowMs = window.windowMs + BUDGET_MARGIN_MS;
  for (;;) {
    // `now` is read once the row is locked, so the calls of every process are stamped in the order they were taken.
    const [row]: Array<{ taken: boolean; wait_ms: string; held_until: Date; held_reason: string | null; is_held: boolean }> = await em.execute(
      `with locked as (
         select held_until, held_reason, calls from crm_portal_budget where provider = ? and portal_id = ? and kind = ? for update
       ), seen as (
         select now, held_until, held_reason, array(select call from unnest(calls) as call where call > now - make_interval(secs => ? / 1000.0) order by call) as recent
         from (select clock_timestamp() as now, held_until, held_reason, calls from locked) as current
       ), decided as (
         select now, held_until, held_reason, recent, held_until <= now and cardinality(recent) < ? as taken from seen
       ), counted as (
         update crm_portal_budget set calls = case when decided.taken then decided.recent || decided.now else decided.recent end
         from decided where provider = ? and portal_id = ? and kind = ?
       )
       select taken, ceil(extract(epoch from greatest(now, held_until, recent[cardinality(recent) - ? + 1] + make_interval(secs => ? / 1000.0)) - now) * 1000) as wait_ms,
         held_until, held_reason, held_until > now as is_held
       from decided`,
      [portal.provider, portal.portalId, kind, windowMs, window.max, portal.provider, portal.portalId, kind, window.max, windowMs],
    );
    if (row) {
      const holdOff = !row.taken && row.is_held && row.held_reason ? { reason: row.held_reason, until: new Date(row.held_until) } : null;
      return { taken: row.taken, waitMs: row.taken ? 0 : Math.max(1, Number(row.wait_ms)), holdOff };
    }
    // The portal's first call of this kind: its row, then the same question.
    await em.execute('insert into crm_portal_budget (provider, portal_id, kind) values (?, ?, ?) on conflict do nothing', [portal.provider, portal.portalId, kind]);
  }
}

/**
 * No process calls the portal, of any of these kinds, for `ms` from now (by
 * the database's clock). `reason` goes with the longest hold-off: why the
 * portal waits, for every caller that meets it.
 */
export async function holdOffPortal(em: EntityManager, portal: PortalKey, kinds: string[], ms: number, reason: string | null = null): Promise<void> {
  // Every row in one fixed order, so two holds never wait on each other crosswise.
  await em.execute(
    `insert into crm_portal_budget as budget (provider, portal_id, kind, held_until, held_reason)
     select ?, ?, kind, clock_timestamp() + make_interval(secs => ? / 1000.0), ? from unnest(string_to_array(?, ',')) as kind order by kind
     on conflict (provider, portal_id, kind) do update set held_until = greatest(budget.held_until, excluded.held_until),
       held_reason = case when excluded.held_until >= budget.held_until then excluded.held_reason else budget.held_reason end`,
    [portal.provider, portal.portalId, ms, reason, [...kinds].sort().join(',')],
  );
}

export interface PortalBudgets {
  /** The budget of one portal, with its CRM's windows by kind of call. */
  forPortal(portal: PortalKey, windows: Readonly<Record<string, BudgetWindow>>): CrmCallBudget;
}

/**
 * Longer waits than this are not waited here: the call fails as unavailable
 * with the wait, and Temporal tries the step again then (a CRM's allowance
 * spent holds a portal off for an hour, or until its day ends), instead of an
 * activity sleeping through it.
 */
export const MAX_BUDGET_WAIT_MS = 15_000;

export function createPortalBudgets(deps: { em: () => EntityManager; maxWaitMs?: number }): PortalBudgets {
  const queues = new Map<string, Promise<void>>();
  const maxWaitMs = deps.maxWaitMs ?? MAX_BUDGET_WAIT_MS;

  async function takeWhenFree(portal: PortalKey, kind: string, window: BudgetWindow): Promise<void> {
    for (;;) {
      const { taken, waitMs, holdOff } = await takePortalCall(deps.em(), portal, kind, window);
      if (taken) return;
      if (waitMs > maxWaitMs) {
        const why = holdOff?.reason ?? 'a limit or its allowance';
        throw new CrmUnavailable(`${CRM_PROVIDER_LABELS[portal.provider]} ${portal.portalId} is held off for ${Math.ceil(waitMs / 1000)} s (${why})`, null, waitMs, holdOff);
      }
      await new Promise<void>((resolve) => setTimeout(resolve, waitMs));
    }
  }

  return {
    forPortal(portal, windows) {
      return {
        acquire(kind) {
          const window = windows[kind];
          if (!window) throw new Error(`${portal.provider} has no budget window named ${kind}`);
          const key = `${portal.provider}:${portal.portalId}:${kind}`;
          const turn = (queues.get(key) ?? Promise.resolve()).then(() => takeWhenFree(portal, kind, window));
          queues.set(key, turn.catch(() => {}));
          return turn;
        },
        holdOff: (ms, reason) => holdOffPortal(deps.em(), portal, Object.keys(windows), ms, reason ?? null),
      };
    },
  };
}
