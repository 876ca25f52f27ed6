// Fairness between accounts on the research task queue (docs/deploy.md#fairness-between-accounts).
// Pure: workflow code imports it.
import { PLAN_NAMES, type PlanName } from '../billing/plans.ts';

/**
 * Each plan's Temporal fairness weight. Within one priority, Temporal hands
 * out an account's queued tasks in proportion to its weight against the other
 * accounts with tasks queued at that moment.
 */
export type FairnessWeights = Record<PlanName, number>;

/**
 * Equal by default: the plans already differ in how much work an account may
 * send (credits per cycle, lists at once); what an account buys is its
 * credits, not a faster lane. Equal weights mean that every account with work
 * waiting gets the same share of the workers, so a burst of one account never
 * delays another's few jobs by more than a round of turns. An operator who
 * sells a faster lane raises a plan's weight (`FAIRNESS_PLAN_WEIGHTS`).
 */
export const DEFAULT_FAIRNESS_WEIGHTS: FairnessWeights = { free: 1, starter: 1, growth: 1, scale: 1 };

/** Temporal clamps weights to this range; a configured weight outside it is refused, not silently clamped. */
export const FAIRNESS_WEIGHT_RANGE = { min: 0.001, max: 1000 } as const;

/** The task fields beside the priority key: one fairness key per account, its plan's weight. */
export interface AccountFairness {
  fairnessKey: string;
  fairnessWeight: number;
}

/** The account's fairness key: its id (short, never reused, and names nobody; Temporal allows 64 bytes). */
export function fairnessKeyOf(accountId: number): string {
  return `account-${accountId}`;
}

export function accountFairness(accountId: number, plan: PlanName, weights: FairnessWeights = DEFAULT_FAIRNESS_WEIGHTS): AccountFairness {
  return { fairnessKey: fairnessKeyOf(accountId), fairnessWeight: weights[plan] };
}

/**
 * Parses `FAIRNESS_PLAN_WEIGHTS`, e.g. `scale=2,growth=1.5`: plans not named
 * keep weight 1. Throws a message naming what is wrong.
 */
export function parseFairnessWeights(text: string): FairnessWeights {
  const weights: FairnessWeights = { ...DEFAULT_FAIRNESS_WEIGHTS };
  for (const part of text.split(',').map((piece) => piece.trim()).filter(Boolean)) {
    const match = /^([a-z]+)\s*=\s*([0-9]+(?:\.[0-9]+)?)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not plan=weight`);
    const [, plan, value] = match as unknown as [string, string, string];
    if (!(PLAN_NAMES as readonly string[]).includes(plan)) throw new Error(`"${plan}" is not a plan (${PLAN_NAMES.join(', ')})`);
    const weight = Number(value);
    if (weight < FAIRNESS_WEIGHT_RANGE.min || weight > FAIRNESS_WEIGHT_RANGE.max) {
      throw new Error(`${plan}'s weight ${value} is outside ${FAIRNESS_WEIGHT_RANGE.min} to ${FAIRNESS_WEIGHT_RANGE.max}`);
    }
    weights[plan as PlanName] = weight;
  }
  return weights;
}
