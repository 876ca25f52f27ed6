import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';

import { CREDIT_ENTRY_KINDS } from '../../domain/dashboard/replies.ts';

export { CREDIT_ENTRY_KINDS, type CreditEntryKind } from '../../domain/dashboard/replies.ts';

/** Every change of an account's credit balance is one row (docs/decisions.md#credits). */
export const CreditLedgerEntry = defineEntity({
  name: 'CreditLedgerEntry',
  properties: {
    id: p.integer().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    /** The research job a consume or refund belongs to; unique per (job, kind) so a refund happens once. */
    researchId: p.string().nullable(),
    kind: p.enum(CREDIT_ENTRY_KINDS),
    /** Credits used change: +1 consume, -1 refund; for resets and plan changes, the new used count minus the old. */
    usedDelta: p.integer(),
    /** The cycle's credit limit after this entry. */
    limitAfter: p.integer(),
    cycleStart: p.datetime(),
    note: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type ICreditLedgerEntry = InferEntity<typeof CreditLedgerEntry>;
