import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';
import { LANGUAGES } from '../../domain/research/languages.ts';
import { ProductContextRow } from './product-context.ts';
import type { CompanyProfile, NewsArticle, SocialPost } from '../../domain/enrichment/enrichment.ts';
import type { CompanyInsights } from '../../domain/research/insights.ts';

/**
 * The cached company of one (company key, account, product): colleagues at the
 * same company share it (docs/decisions.md#data-and-ai). The key is the company
 * domain, or `name:<lower-cased name>` when only a name hint is known.
 */
export const CompanyRow = defineEntity({
  name: 'CompanyRow',
  tableName: 'company',
  uniques: [{ properties: ['account', 'product', 'companyKey'] }],
  properties: {
    id: p.integer().primary(),
    account: () => p.manyToOne(Account).deleteRule('cascade'),
    product: () => p.manyToOne(ProductContextRow).deleteRule('cascade'),
    companyKey: p.string(),
    profile: p.json<CompanyProfile>().nullable(),
    source: p.string().nullable(),
    apisCalled: p.json<string[]>(),
    /** Null until a provider lookup succeeded (a failed lookup is not cached). */
    fetchedAt: p.datetime().nullable(),
    technologies: p.json<string[]>().nullable(),
    posts: p.json<SocialPost[]>().nullable(),
    postsFetchedAt: p.datetime().nullable(),
    news: p.json<NewsArticle[]>().nullable(),
    newsFetchedAt: p.datetime().nullable(),
    decisionMakersFetchedAt: p.datetime().nullable(),
    insights: p.json<CompanyInsights>().nullable(),
    insightsGeneratedAt: p.datetime().nullable(),
    /** The language `insights` were written in; null with no insights, or written before languages were recorded. */
    insightsLanguage: p.enum(LANGUAGES).nullable(),
  },
});

export type ICompanyRow = InferEntity<typeof CompanyRow>;
