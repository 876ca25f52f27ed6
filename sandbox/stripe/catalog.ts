// The stand-in's product catalogue: one monthly USD price per paid plan
// (docs/billing.md#plans). Ids are fixed so configuration can name them (integrations/stripe/config.ts).
// Shape: the Price object, stripe/openapi openapi/fixtures3.json `resources.price`.

import { SANDBOX_PRICE_IDS } from '../../integrations/stripe/config.ts';
import { PLANS } from '../../domain/billing/plans.ts';

export interface SandboxPrice {
  id: string;
  object: 'price';
  active: true;
  billing_scheme: 'per_unit';
  created: number;
  currency: 'usd';
  livemode: false;
  lookup_key: string;
  metadata: Record<string, string>;
  nickname: string;
  product: string;
  recurring: { interval: 'month'; interval_count: 1; meter: null; usage_type: 'licensed'; trial_period_days: null };
  tax_behavior: 'unspecified';
  type: 'recurring';
  unit_amount: number;
  unit_amount_decimal: string;
}

const CREATED = Date.UTC(2026, 0, 1) / 1000;

export function sandboxPrices(): SandboxPrice[] {
  return (['starter', 'growth', 'scale'] as const).map((plan) => {
    const cents = PLANS[plan].monthlyPriceUsd * 100;
    const title = plan[0]!.toUpperCase() + plan.slice(1);
    return {
      id: SANDBOX_PRICE_IDS[plan],
      object: 'price',
      active: true,
      billing_scheme: 'per_unit',
      created: CREATED,
      currency: 'usd',
      livemode: false,
      lookup_key: `${plan}_monthly`,
      metadata: {},
      nickname: `${title} monthly`,
      product: `prod_${plan}`,
      recurring: { interval: 'month', interval_count: 1, meter: null, usage_type: 'licensed', trial_period_days: null },
      tax_behavior: 'unspecified',
      type: 'recurring',
      unit_amount: cents,
      unit_amount_decimal: String(cents),
    };
  });
}
