import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { LANGUAGES } from '../../domain/research/languages.ts';
import { ProductContextRow } from './product-context.ts';
import type { PersonProfile, SocialPost } from '../../domain/enrichment/enrichment.ts';
import type { ProspectInsights } from '../../domain/research/insights.ts';

/** The cached prospect of one (e-mail, account, product) (docs/api.md#freshness). */
export const ProspectRow = defineEntity({
  name: 'ProspectRow',
  tableName: 'prospect',
  uniques: [{ properties: ['account', 'product', 'email'] }],
  properties: {
    id: p.integer().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    product: () => p.manyToOne(ProductContextRow).deleteRule('cascade'),
    email: p.string(),
    /** Null: no provider knows this person (cached too, so repeats stay cheap). */
    profile: p.json<PersonProfile>().nullable(),
    source: p.string().nullable(),
    /** Null until a provider lookup succeeded (a failed lookup is not cached). */
    fetchedAt: p.datetime().nullable(),
    posts: p.json<SocialPost[]>().nullable(),
    postsFetchedAt: p.datetime().nullable(),
    insights: p.json<ProspectInsights>().nullable(),
    insightsGeneratedAt: p.datetime().nullable(),
    /** The language `insights` were written in; null with no insights, or written before languages were recorded. */
    insightsLanguage: p.enum(LANGUAGES).nullable(),
  },
});

export type IProspectRow = InferEntity<typeof ProspectRow>;
