import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, CreditLedgerEntry } from '../db/entities/index.ts';
import type { IAccount } from '../db/entities/account.ts';
import { billingCycleAt, cycleShareLeft } from '../domain/billing-cycle.ts';
import { PLANS, planRank, type PlanName } from '../domain/plans.ts';
import type { Language } from '../domain/languages.ts';
import { lockAccount } from './credits.ts';

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

export interface CreditStatement {
  account_id: number;
  plan: PlanName;
  pending_plan: PlanName | null;
  credits_used: number;
  credit_limit: number;
  credits_remaining: number;
  cycle_start: string;
  cycle_end: string;
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
 * Spec §8.1 / DECISIONS.md: an upgrade applies at once, with the new plan's
 * credits prorated over the rest of the cycle plus the unused credits of the
 * current one; a downgrade waits for the next cycle start.
 */
export async function changePlan(em: EntityManager, accountId: number, plan: PlanName, now: Date): Promise<CreditStatement> {
  return em.transactional(async (tx) => {
    const account = await lockAccount(tx, accountId, now);
    if (planRank(plan) > planRank(account.plan)) {
      const unused = Math.max(0, account.creditLimit - account.creditsUsed);
      const cycle = billingCycleAt(account.billingAnchor, now);
      const prorated = Math.round(PLANS[plan].creditsPerCycle * cycleShareLeft(cycle, now));
      account.plan = plan;
      account.pendingPlan = null;
      account.creditLimit = account.creditsUsed + unused + prorated;
      tx.create(CreditLedgerEntry, {
        account,
        researchId: null,
        kind: 'plan_change',
        usedDelta: 0,
        limitAfter: account.creditLimit,
        cycleStart: account.cycleStart,
        note: `upgrade to ${plan}: ${unused} carried over + ${prorated} prorated`,
      });
    } else {
      account.pendingPlan = plan === account.plan ? null : plan;
    }
    await tx.flush();
    return creditStatement(account);
  });
}
