// Plan rules in one table (docs/api.md#credits-and-plans; docs/decisions.md#plans).

export const PLAN_NAMES = ['free', 'starter', 'growth', 'scale'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface Plan {
  name: PlanName;
  monthlyPriceUsd: number;
  creditsPerCycle: number;
  /** null: unlimited. */
  maxActiveKeys: number | null;
  hasDecisionMakers: boolean;
  hasCompanyNews: boolean;
  hasCrmIntegration: boolean;
}

export const PLANS: Record<PlanName, Plan> = {
  free: { name: 'free', monthlyPriceUsd: 0, creditsPerCycle: 3, maxActiveKeys: 1, hasDecisionMakers: false, hasCompanyNews: false, hasCrmIntegration: false },
  starter: { name: 'starter', monthlyPriceUsd: 49, creditsPerCycle: 50, maxActiveKeys: 3, hasDecisionMakers: false, hasCompanyNews: false, hasCrmIntegration: false },
  growth: { name: 'growth', monthlyPriceUsd: 149, creditsPerCycle: 200, maxActiveKeys: 10, hasDecisionMakers: true, hasCompanyNews: false, hasCrmIntegration: true },
  scale: { name: 'scale', monthlyPriceUsd: 349, creditsPerCycle: 600, maxActiveKeys: null, hasDecisionMakers: true, hasCompanyNews: true, hasCrmIntegration: true },
};

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}

export function planRank(name: PlanName): number {
  return PLAN_NAMES.indexOf(name);
}

/** docs/api.md#errors: the Free plan runs into its trial limit, paid plans into their monthly credits. */
export function creditErrorCode(name: PlanName): 'trial_limit_reached' | 'credits_exhausted' {
  return name === 'free' ? 'trial_limit_reached' : 'credits_exhausted';
}

/** A plan as people read it, one form everywhere (dashboard, e-mails): "Growth", as in "the Growth plan". */
export function planLabel(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
