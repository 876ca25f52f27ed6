import type { InsightsInput, InsightsResult } from '../domain/research/insights.ts';
import type { CompanyOutcome, ProspectOutcome, ResearchOutcome, ResearchPlan } from '../domain/research/pipeline.ts';
import type { CompanyState, PersonPostsState, PersonState } from './enrichment-steps.ts';

/**
 * What the AI step must (re)write: a half whose data changed or whose insights
 * are missing (`needsAI`). Null when nothing needs the model (a cache hit).
 */
export function insightsInputFor(
  plan: ResearchPlan,
  person: PersonState,
  posts: PersonPostsState,
  company: CompanyState | null,
): InsightsInput | null {
  const needsProspect = person.profile !== null && (person.isRefreshed || posts.arePostsRefreshed || plan.prospect.needsAI);
  const needsCompany =
    company?.profile != null &&
    (company.isRefreshed || company.arePostsRefreshed || company.isNewsRefreshed || company.plan.needsAI);
  if (!needsProspect && !needsCompany) return null;
  return {
    ...plan.insightsContext,
    // An activity's input is not compared on replay: runs recorded before plans carried the account replay unchanged.
    account: plan.account,
    person: person.profile,
    personPosts: posts.posts ?? [],
    company: company?.profile ?? null,
    companyPosts: company?.posts ?? [],
    news: company?.news ?? [],
    technologies: company?.technologies ?? [],
    needs: { prospect: needsProspect, company: needsCompany },
  };
}

/**
 * Merges fresh and cached parts. A half the model was asked for but could not
 * write is stored as null, so the next request regenerates it (docs/api.md#freshness).
 */
export function buildOutcome(
  plan: ResearchPlan,
  person: PersonState,
  posts: PersonPostsState,
  company: CompanyState | null,
  input: InsightsInput | null,
  result: InsightsResult | null,
): ResearchOutcome {
  // A record refreshed to "not found" keeps no insights written about the old one.
  const keptProspectInsights = person.isRefreshed && person.profile === null ? null : plan.prospect.insights;
  const prospect: ProspectOutcome = {
    ...person,
    ...posts,
    insights: input?.needs.prospect ? (result?.prospect ?? null) : keptProspectInsights,
    areInsightsRefreshed: Boolean(input?.needs.prospect && result?.prospect),
  };
  let companyOutcome: CompanyOutcome | null = null;
  if (company) {
    const { plan: companyPlan, ...rest } = company;
    const keptCompanyInsights = company.isRefreshed && company.profile === null ? null : companyPlan.insights;
    companyOutcome = {
      ...rest,
      insights: input?.needs.company ? (result?.company ?? null) : keptCompanyInsights,
      areInsightsRefreshed: Boolean(input?.needs.company && result?.company),
    };
  }
  return {
    prospect,
    company: companyOutcome,
    // The language travels with the texts so the cache knows what it holds.
    // Only the activity's input changes, not the commands: replay is unaffected.
    ai: { source: result?.source ?? null, usage: result?.usage ?? null, language: input?.language ?? null },
  };
}
