import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { ProductContextRow } from './product-context.ts';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  properties: {
    id: p.integer().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    /** Null: a key without product context (docs/api.md#authentication: a new key is needed). */
    product: () => p.manyToOne(ProductContextRow).nullable().deleteRule('set null'),
    /** SHA-256 of the full key, hex; the key itself is never stored. */
    keyHash: p.string().length(64).unique(),
    /** `svc_live_` + first characters, to tell keys apart in the dashboard. */
    displayPrefix: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
    /** Written at most once a minute per key (services/accounts/key-last-use.ts). */
    lastUsedAt: p.datetime().nullable(),
  },
});

export type IApiKey = InferEntity<typeof ApiKey>;
