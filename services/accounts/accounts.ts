import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, CreditLedgerEntry } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import { billingCycleAt, cycleShareLeft } from '../../domain/billing/cycle.ts';
import { PLANS, planRank, type PlanName } from '../../domain/billing/plans.ts';
import type { Language } from '../../domain/research/languages.ts';
import type { CreditStatement } from '../../domain/dashboard/replies.ts';

export type { CreditStatement };
import { lockAccount } from '../billing/credits.ts';

export async function createAccount(
  em: EntityManager,
  input: { ownerEmail: string; plan: PlanName; language: Language },
  now: Date,
): Promise<IAccount> {
  const account = em.create(Account, {
    ownerEmail: input.ownerEmail,
    plan: input.plan,
    pendingPlan: null,
    billingAnchor: now,
    language: input.language,
    cycleStart: billingCycleAt(now, now).start,
    creditsUsed: 0,
    creditLimit: PLANS[input.plan].creditsPerCycle,
  });
  await em.flush();
  return account;
}

export function creditStatement(account: IAccount): CreditStatement {
  const cycle = billingCycleAt(account.billingAnchor, account.cycleStart);
  return {
    account_id: account.id,
    plan: account.plan,
    pending_plan: account.pendingPlan ?? null,
    credits_used: account.creditsUsed,
    credit_limit: account.creditLimit,
    credits_remaining: Math.max(0, account.creditLimit - account.creditsUsed),
    cycle_start: cycle.start.toISOString(),
    cycle_end: cycle.end.toISOString(),
  };
}

/**
 * docs/decisions.md#plans: an upgrade applies at once, with the new plan's
 * credits prorated over the rest of the cycle plus the unused credits of the
 * current one; a downgrade waits for the next cycle start.
 */
export async function changePlan(em: EntityManager, accountId: number, plan: PlanName, now: Date): Promise<CreditStatement> {
  return em.transactional(async (tx) => {
    const account = await lockAccount(tx, accountId, now);
    if (planRank(plan) > planRank(account.plan)) {
      upgradeLockedAccount(tx, account, plan, now);
    } else {
      account.pendingPlan = plan === account.plan ? null : plan;
    }
    await tx.flush();
    return creditStatement(account);
  });
}

/** What an upgrade to `plan` at `now` gives (docs/decisions.md#plans): the unused credits kept, plus the new plan's prorated over the cycle's rest. */
export function upgradeCredits(account: IAccount, plan: PlanName, now: Date): { unused: number; prorated: number; limitAfter: number } {
  const unused = Math.max(0, account.creditLimit - account.creditsUsed);
  const cycle = billingCycleAt(account.billingAnchor, now);
  const prorated = Math.round(PLANS[plan].creditsPerCycle * cycleShareLeft(cycle, now));
  return { unused, prorated, limitAfter: account.creditsUsed + unused + prorated };
}

/** Upgrades an account locked by `lockAccount`, with its ledger row. */
export function upgradeLockedAccount(em: EntityManager, account: IAccount, plan: PlanName, now: Date): void {
  const { unused, prorated, limitAfter } = upgradeCredits(account, plan, now);
  account.plan = plan;
  account.pendingPlan = null;
  account.creditLimit = limitAfter;
  em.create(CreditLedgerEntry, {
    account,
    researchId: null,
    kind: 'plan_change',
    usedDelta: 0,
    limitAfter: account.creditLimit,
    cycleStart: account.cycleStart,
    note: `upgrade to ${plan}: ${unused} carried over + ${prorated} prorated`,
  });
}
