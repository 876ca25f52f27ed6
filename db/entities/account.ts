import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { PLAN_NAMES } from '../../domain/plans.ts';
import { LANGUAGES } from '../../domain/languages.ts';

export const Account = defineEntity({
  name: 'Account',
  properties: {
    id: p.integer().primary(),
    ownerEmail: p.string().unique(),
    plan: p.enum(PLAN_NAMES),
    /** A downgrade waits for the next cycle start (DECISIONS.md "Plans"). */
    pendingPlan: p.enum(PLAN_NAMES).nullable(),
    /** Subscription moment: cycles start on its day each month. */
    billingAnchor: p.datetime(),
    language: p.enum(LANGUAGES),
    /** The cycle the counters below belong to; rolled over lazily when a later cycle is seen. */
    cycleStart: p.datetime(),
    creditsUsed: p.integer().default(0),
    creditLimit: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type IAccount = InferEntity<typeof Account>;
