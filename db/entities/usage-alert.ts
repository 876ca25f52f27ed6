import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';

export const USAGE_ALERT_THRESHOLDS = [75, 95] as const;
export type UsageAlertThreshold = (typeof USAGE_ALERT_THRESHOLDS)[number];

/**
 * A usage threshold an account has passed in a cycle (docs/mail.md#usage-alerts):
 * one row per (account, cycle, threshold), written with the credit that crossed
 * it, whether or not an e-mail went out, so that a refund cannot re-arm it.
 */
export const UsageAlert = defineEntity({
  name: 'UsageAlert',
  tableName: 'usage_alert',
  uniques: [{ properties: ['account', 'cycleStart', 'threshold'] }],
  properties: {
    id: p.integer().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    cycleStart: p.datetime(),
    /** Percent of the cycle's limit: 75 or 95. */
    threshold: p.integer(),
    /** Credits used and the limit in force when it was crossed. */
    used: p.integer(),
    limit: p.integer(),
    /** False when the owner had alerts off, or a larger threshold crossed by the same credit took its place. */
    isEmailed: p.boolean(),
    createdAt: p.datetime(),
  },
});

export type IUsageAlert = InferEntity<typeof UsageAlert>;
