import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, CompanyRow, DecisionMakerRow, ProductContextRow, ProspectRow } from '../../db/entities/index.ts';
import type { IAccount } from '../../db/entities/account.ts';
import type { IProductContextRow } from '../../db/entities/product-context.ts';
import type { ICompanyRow } from '../../db/entities/company.ts';
import type { IDecisionMakerRow } from '../../db/entities/decision-maker.ts';
import type { IProspectRow } from '../../db/entities/prospect.ts';
import type { CachedCompany } from '../../domain/enrichment/cache-flags.ts';
import type { DecisionMakerProfile } from '../../domain/enrichment/enrichment.ts';
import type { Language } from '../../domain/research/languages.ts';
import type { CompanyOutcome, ProspectOutcome, ResearchOutcome } from '../../domain/research/pipeline.ts';

// The stored results of docs/api.md#freshness live in the prospect, company and decision-maker
// rows, scoped to (account, product). Refreshed parts overwrite what was there.

/** A cached company row with its decision makers, as stored. */
export interface CompanyRows {
  row: ICompanyRow;
  decisionMakerRows: IDecisionMakerRow[];
}

export async function loadCompanyRows(em: EntityManager, accountId: number, productId: number, companyKey: string): Promise<CompanyRows | null> {
  const row = await em.findOne(CompanyRow, { account: accountId, product: productId, companyKey });
  if (!row) return null;
  const decisionMakerRows = await em.find(DecisionMakerRow, { company: row }, { orderBy: { id: 'asc' } });
  return { row, decisionMakerRows };
}

export function cachedCompanyOf(rows: CompanyRows | null): CachedCompany | null {
  if (!rows) return null;
  const { row, decisionMakerRows } = rows;
  return { ...row, decisionMakers: row.decisionMakersFetchedAt ? decisionMakerRows.map(toProfile) : null };
}

export async function loadCachedCompany(em: EntityManager, accountId: number, productId: number, companyKey: string): Promise<CachedCompany | null> {
  return cachedCompanyOf(await loadCompanyRows(em, accountId, productId, companyKey));
}

function toProfile(row: IDecisionMakerRow): DecisionMakerProfile {
  const { fullName, positionTitle, socialUrl, pictureUrl, locationText, companyName } = row;
  return { fullName, positionTitle, socialUrl, pictureUrl: pictureUrl ?? null, locationText: locationText ?? null, companyName };
}

export interface StoredRows {
  prospectRow: IProspectRow;
  companyRow: ICompanyRow | null;
  decisionMakerRows: IDecisionMakerRow[];
}

/** Where a job's outcome is stored: its scope and the rows read for it (`readFinishingJob`), null when none exist yet. */
export interface OutcomeTarget {
  accountId: number;
  productId: number;
  email: string;
  prospectRow: IProspectRow | null;
  companyRows: CompanyRows | null;
}

/** Writes the outcome into the rows read beforehand (or new ones); the caller's flush or commit writes them. */
export async function storeOutcome(em: EntityManager, target: OutcomeTarget, outcome: ResearchOutcome, now: Date): Promise<StoredRows> {
  const scope = { account: em.getReference(Account, target.accountId), product: em.getReference(ProductContextRow, target.productId) };
  const language = outcome.ai.language ?? null;
  const prospectRow = storeProspect(em, scope, target, outcome.prospect, language, now);
  const company = outcome.company ? await storeCompany(em, scope, target.companyRows, outcome.company, language, now) : null;
  await em.flush();
  return { prospectRow, companyRow: company?.row ?? null, decisionMakerRows: company?.decisionMakers ?? [] };
}

type Scope = { account: IAccount; product: IProductContextRow };

/**
 * Freshly written insights record their language; insights dropped (the model
 * failed, or the record is gone) drop it too, so the next job rewrites them.
 */
function storeInsights(row: IProspectRow | ICompanyRow, outcome: ProspectOutcome | CompanyOutcome, language: Language | null, now: Date): void {
  row.insights = outcome.insights;
  if (outcome.areInsightsRefreshed) Object.assign(row, { insightsGeneratedAt: now, insightsLanguage: language });
  if (outcome.insights === null) row.insightsLanguage = null;
}

function storeProspect(em: EntityManager, scope: Scope, target: OutcomeTarget, outcome: ProspectOutcome, language: Language | null, now: Date): IProspectRow {
  const row =
    target.prospectRow ??
    em.create(ProspectRow, {
      ...scope, email: target.email, profile: null, source: null, fetchedAt: null, posts: null, postsFetchedAt: null,
      insights: null, insightsGeneratedAt: null, insightsLanguage: null,
    });
  if (outcome.isRefreshed) Object.assign(row, { profile: outcome.profile, source: outcome.source, fetchedAt: now });
  if (outcome.arePostsRefreshed) Object.assign(row, { posts: outcome.posts, postsFetchedAt: now });
  storeInsights(row, outcome, language, now);
  return row;
}

async function storeCompany(
  em: EntityManager,
  scope: Scope,
  cached: CompanyRows | null,
  outcome: CompanyOutcome,
  language: Language | null,
  now: Date,
): Promise<{ row: ICompanyRow; decisionMakers: IDecisionMakerRow[] }> {
  const empty = {
    profile: null, source: null, apisCalled: [], fetchedAt: null, technologies: null, posts: null, postsFetchedAt: null,
    news: null, newsFetchedAt: null, decisionMakersFetchedAt: null, insights: null, insightsGeneratedAt: null, insightsLanguage: null,
  };
  const row = cached?.row ?? em.create(CompanyRow, { ...scope, companyKey: outcome.companyKey, ...empty });
  if (outcome.isRefreshed) Object.assign(row, { profile: outcome.profile, source: outcome.source, fetchedAt: now, apisCalled: outcome.apisCalled });
  row.technologies = outcome.technologies;
  storeInsights(row, outcome, language, now);
  if (outcome.arePostsRefreshed) Object.assign(row, { posts: outcome.posts, postsFetchedAt: now });
  if (outcome.isNewsRefreshed) Object.assign(row, { news: outcome.news, newsFetchedAt: now });

  if (outcome.areDecisionMakersRefreshed) {
    if (cached) await em.nativeDelete(DecisionMakerRow, { company: cached.row.id });
    row.decisionMakersFetchedAt = now;
    const created = (outcome.decisionMakers ?? []).map((person) => em.create(DecisionMakerRow, { company: row, ...person }));
    return { row, decisionMakers: created };
  }
  return { row, decisionMakers: cached?.decisionMakerRows ?? [] };
}
