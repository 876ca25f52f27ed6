import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { PLAN_NAMES } from '../../domain/billing/plans.ts';
import { LANGUAGES } from '../../domain/research/languages.ts';

export const Account = defineEntity({
  name: 'Account',
  properties: {
    id: p.integer().primary(),
    ownerEmail: p.string().unique(),
    plan: p.enum(PLAN_NAMES),
    /** A downgrade waits for the next cycle start (docs/decisions.md#plans). */
    pendingPlan: p.enum(PLAN_NAMES).nullable(),
    /** Subscription moment: cycles start on its day each month. */
    billingAnchor: p.datetime(),
    language: p.enum(LANGUAGES),
    /** The cycle the counters below belong to; rolled over lazily when a later cycle is seen. */
    cycleStart: p.datetime(),
    creditsUsed: p.integer().default(0),
    creditLimit: p.integer(),
    /** Stripe's customer for this account, created before its first Checkout. */
    stripeCustomerId: p.string().nullable().unique(),
    /** The paid subscription the plan follows (docs/decisions.md#plans); null on Free. */
    stripeSubscriptionId: p.string().nullable(),
    /** Stripe's status of that subscription (`active`, `past_due`, …), as last read from Stripe. */
    subscriptionStatus: p.string().nullable(),
    /** The better-auth user who owns the account (one owner); null until an operator-made account is claimed. */
    ownerUserId: p.string().nullable(),
    /** Usage alert e-mails at 75 % and 95 % (docs/mail.md#usage-alerts): on by default, off in preferences. */
    usageAlertsEnabled: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** The owner asked to delete the account: its keys are revoked, sign-in refused (services/accounts/deletion.ts). */
    deletionRequestedAt: p.datetime().nullable(),
    /** The daily purge deleted everything of the account; the row stays as a tombstone without personal data. */
    deletedAt: p.datetime().nullable(),
  },
});

export type IAccount = InferEntity<typeof Account>;
