import type { Env } from '../../lib/env.ts';
import { loadStripeConfig } from './config.ts';
import { createStripeBilling, type StripeBilling } from './stripe-billing.ts';

export { loadStripeConfig, PAID_PLANS, SANDBOX_PRICE_IDS, type PaidPlanName, type StripeConfig } from './config.ts';
export { createStripeBilling, StripeBilling, type SubscriptionState, type UpgradePreview } from './stripe-billing.ts';

/** The billing client the environment configures, or null when `STRIPE_SECRET_KEY` is unset (no payments). */
export function billingFromEnv(env: Env = process.env): StripeBilling | null {
  const config = loadStripeConfig(env);
  return config ? createStripeBilling(config) : null;
}
