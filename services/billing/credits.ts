import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Account, CreditLedgerEntry } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import { billingCycleAt } from '../../domain/billing/cycle.ts';
import { PLANS, creditErrorCode } from '../../domain/billing/plans.ts';
import { pauseAccountIntegrations } from '../crm/connections.ts';
import { recordUsageAlerts, type UsageAlertSettings } from './usage-alerts.ts';

export type CreditRefusal = { code: 'trial_limit_reached' | 'credits_exhausted'; used: number; limit: number };
/** A credit taken; `isMailQueued` when it crossed a usage threshold and an alert waits in the outbox (nudge it after the commit). */
export type CreditConsumption = { outcome: 'refused'; refusal: CreditRefusal } | { outcome: 'taken'; isMailQueued: boolean };

/**
 * Locks the account row for the rest of the caller's transaction, so that
 * concurrent requests of one account take credits one after another and the
 * limit holds under any concurrency.
 */
export async function lockAccount(em: EntityManager, accountId: number, now: Date): Promise<IAccount> {
  const account = await em.findOneOrFail(Account, accountId, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  const planBefore = account.plan;
  rollBillingCycle(em, account, now);
  // A pending downgrade below Growth taking effect pauses the CRM integrations (docs/decisions.md#crm-integration);
  // their Schedules follow at the next reconcile, and a run refuses to start on such a plan meanwhile.
  if (PLANS[planBefore].hasCrmIntegration && !PLANS[account.plan].hasCrmIntegration) await pauseAccountIntegrations(em, account.id, 'plan', now);
  return account;
}

/** Starts a new cycle when `now` has passed the stored one: counters reset, a pending downgrade applies. */
export function rollBillingCycle(em: EntityManager, account: IAccount, now: Date): void {
  const cycle = billingCycleAt(account.billingAnchor, now);
  if (account.cycleStart.getTime() >= cycle.start.getTime()) return;
  const usedBefore = account.creditsUsed;
  if (account.pendingPlan) {
    account.plan = account.pendingPlan;
    account.pendingPlan = null;
  }
  account.cycleStart = cycle.start;
  account.creditsUsed = 0;
  account.creditLimit = PLANS[account.plan].creditsPerCycle;
  em.create(CreditLedgerEntry, {
    account,
    researchId: null,
    kind: 'cycle_reset',
    usedDelta: -usedBefore,
    limitAfter: account.creditLimit,
    cycleStart: cycle.start,
    note: `new cycle on ${account.plan}`,
  });
}

/**
 * Takes one credit for a research job from an account locked by `lockAccount`,
 * or says why not. A credit that crosses 75 % or 95 % of the limit records the
 * usage alert in the same transaction (services/billing/usage-alerts.ts).
 */
export async function consumeCredit(em: EntityManager, account: IAccount, researchId: string, alerts: UsageAlertSettings): Promise<CreditConsumption> {
  if (account.creditsUsed >= account.creditLimit) {
    return { outcome: 'refused', refusal: { code: creditErrorCode(account.plan), used: account.creditsUsed, limit: account.creditLimit } };
  }
  const usedBefore = account.creditsUsed;
  account.creditsUsed += 1;
  em.create(CreditLedgerEntry, {
    account,
    researchId,
    kind: 'consume',
    usedDelta: 1,
    limitAfter: account.creditLimit,
    cycleStart: account.cycleStart,
    note: null,
  });
  return { outcome: 'taken', isMailQueued: await recordUsageAlerts(em, account, usedBefore, alerts) };
}

/**
 * Gives back the credit of a failed job (docs/api.md#refunds), once: a second call for the
 * same job finds the refund row and changes nothing. A refund that lands in a
 * later cycle is recorded but cannot raise credits already reset.
 */
export async function refundCredit(em: EntityManager, researchId: string, reason: string, now: Date): Promise<boolean> {
  const consumed = await em.findOne(CreditLedgerEntry, { researchId, kind: 'consume' }, { populate: ['account'] });
  if (!consumed) return false;
  const account = await lockAccount(em, consumed.account.id, now);
  // Checked after taking the account lock: concurrent refunds of one job serialise on it.
  const refunded = await em.count(CreditLedgerEntry, { researchId, kind: 'refund' });
  if (refunded > 0) return false;
  const sameCycle = consumed.cycleStart.getTime() === account.cycleStart.getTime();
  const usedDelta = sameCycle && account.creditsUsed > 0 ? -1 : 0;
  account.creditsUsed += usedDelta;
  em.create(CreditLedgerEntry, {
    account,
    researchId,
    kind: 'refund',
    usedDelta,
    limitAfter: account.creditLimit,
    cycleStart: account.cycleStart,
    note: reason,
  });
  return true;
}

/** Credits a job costs as of now: 1 once taken, 0 after its refund (docs/api.md#refunds). */
export async function creditsChargedFor(em: EntityManager, researchId: string): Promise<number> {
  const rows: Array<{ charged: number | null }> = await em
    .getConnection()
    .execute(`select sum(case when kind = 'consume' then 1 when kind = 'refund' then -1 else 0 end)::int as charged from credit_ledger_entry where research_id = ?`, [researchId]);
  return Math.max(0, rows[0]?.charged ?? 0);
}
