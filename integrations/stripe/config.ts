import { z } from 'zod';
import { ConfigError, envVar, parseEnv, type Env } from '../../lib/env.ts';
import type { PlanName } from '../../domain/billing/plans.ts';

export type PaidPlanName = Exclude<PlanName, 'free'>;
export const PAID_PLANS: readonly PaidPlanName[] = ['starter', 'growth', 'scale'];

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Stripe price id of each paid plan (a monthly recurring price in USD). */
  prices: Record<PaidPlanName, string>;
  /** Where the Stripe API is: Stripe's own host, or the local stand-in (`sandbox/stripe/`). */
  apiBase: URL;
  /** True when `apiBase` is not Stripe's: the stand-in, or stripe-mock. */
  isStandIn: boolean;
}

export const STRIPE_API_BASE = 'https://api.stripe.com';

/** The stand-in's fixed price ids (`sandbox/stripe/catalog.ts`), used when none are configured but a stand-in is. */
export const SANDBOX_PRICE_IDS: Record<PaidPlanName, string> = { starter: 'price_starter_monthly', growth: 'price_growth_monthly', scale: 'price_scale_monthly' };

const ZStripeEnv = z.object({
  STRIPE_SECRET_KEY: envVar.text().optional(),
  STRIPE_WEBHOOK_SECRET: envVar.text().optional(),
  STRIPE_PRICE_STARTER: envVar.text().optional(),
  STRIPE_PRICE_GROWTH: envVar.text().optional(),
  STRIPE_PRICE_SCALE: envVar.text().optional(),
  STRIPE_API_BASE: envVar.url(['http', 'https']).optional(),
});

/**
 * Billing settings, or null when billing is not configured (no secret key):
 * the dashboard then offers no payment and the webhook route answers 503.
 * A real key needs the webhook secret and all three price ids; against a
 * stand-in (`STRIPE_API_BASE`) the prices default to the stand-in's catalogue.
 */
export function loadStripeConfig(env: Env = process.env): StripeConfig | null {
  const e = parseEnv(ZStripeEnv, env);
  if (!e.STRIPE_SECRET_KEY) return null;
  const apiBase = new URL(e.STRIPE_API_BASE ?? STRIPE_API_BASE);
  const isStandIn = apiBase.origin !== STRIPE_API_BASE;
  const fallback = (plan: PaidPlanName) => (isStandIn ? SANDBOX_PRICE_IDS[plan] : undefined);
  const prices = {
    starter: e.STRIPE_PRICE_STARTER ?? fallback('starter'),
    growth: e.STRIPE_PRICE_GROWTH ?? fallback('growth'),
    scale: e.STRIPE_PRICE_SCALE ?? fallback('scale'),
  };
  const missing = [
    ...(e.STRIPE_WEBHOOK_SECRET ? [] : ['STRIPE_WEBHOOK_SECRET']),
    ...Object.entries(prices).filter(([, id]) => !id).map(([plan]) => `STRIPE_PRICE_${plan.toUpperCase()}`),
  ];
  if (missing.length > 0) throw new ConfigError(missing.map((name) => `${name} is not set: expected a value, since STRIPE_SECRET_KEY is set`));
  return { secretKey: e.STRIPE_SECRET_KEY, webhookSecret: e.STRIPE_WEBHOOK_SECRET!, prices: prices as Record<PaidPlanName, string>, apiBase, isStandIn };
}
