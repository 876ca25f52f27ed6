import type { CompanyPlan, ProspectPlan, ResearchOutcome, ResearchPlan } from '../research/pipeline.ts';
import type { CompanyProfile, DecisionMakerProfile, NewsArticle, PersonProfile, SocialPost } from './enrichment.ts';
import type { CompanyInsights, ProspectInsights } from '../research/insights.ts';
import { COMPANY_TTL_DAYS, DECISION_MAKERS_TTL_DAYS, PROSPECT_TTL_DAYS, isFresh } from './cache-policy.ts';
import type { Language } from '../research/languages.ts';

// The three flags of docs/api.md#freshness — fetch, needsAI, needsPosts — per part, from
// what the cache holds. Pure, so every rule is testable with a fixed clock.

export interface CachedProspect {
  profile?: PersonProfile | null;
  source?: string | null;
  fetchedAt?: Date | null;
  posts?: SocialPost[] | null;
  postsFetchedAt?: Date | null;
  insights?: ProspectInsights | null;
  insightsLanguage?: Language | null;
}

/**
 * Cached AI texts written in another language than the job's (or in an
 * unknown one) are rewritten, whatever their data's age: every AI text is in
 * the account's language (docs/decisions.md#data-and-ai).
 */
function isInOtherLanguage(cached: { insights?: unknown; insightsLanguage?: Language | null } | null, language: Language): boolean {
  return cached?.insights != null && cached.insightsLanguage !== language;
}

export function planProspect(cached: CachedProspect | null, now: Date, language: Language): ProspectPlan {
  const isProfileFresh = isFresh(cached?.fetchedAt, PROSPECT_TTL_DAYS, now);
  const profile = cached?.profile ?? null;
  return {
    profile,
    source: cached?.source ?? null,
    posts: cached?.posts ?? null,
    insights: cached?.insights ?? null,
    needsFetch: !isProfileFresh,
    needsPosts: isProfileFresh && profile?.socialUrl != null && !isFresh(cached?.postsFetchedAt, PROSPECT_TTL_DAYS, now),
    needsAI: profile !== null && ((isProfileFresh && cached?.insights == null) || isInOtherLanguage(cached, language)),
  };
}

export interface CachedCompany {
  companyKey: string;
  profile?: CompanyProfile | null;
  source?: string | null;
  apisCalled: string[];
  fetchedAt?: Date | null;
  technologies?: string[] | null;
  posts?: SocialPost[] | null;
  postsFetchedAt?: Date | null;
  news?: NewsArticle[] | null;
  newsFetchedAt?: Date | null;
  decisionMakers?: DecisionMakerProfile[] | null;
  decisionMakersFetchedAt?: Date | null;
  insights?: CompanyInsights | null;
  insightsLanguage?: Language | null;
}

export function planCompany(
  companyKey: string,
  cached: CachedCompany | null,
  entitlements: { decisionMakers: boolean; companyNews: boolean },
  now: Date,
  language: Language,
): CompanyPlan {
  const isProfileFresh = isFresh(cached?.fetchedAt, COMPANY_TTL_DAYS, now);
  const hasProfile = isProfileFresh && cached?.profile != null;
  return {
    companyKey,
    profile: cached?.profile ?? null,
    source: cached?.source ?? null,
    apisCalled: cached?.apisCalled ?? [],
    technologies: cached?.technologies ?? null,
    posts: cached?.posts ?? null,
    news: cached?.news ?? null,
    decisionMakers: cached?.decisionMakers ?? null,
    insights: cached?.insights ?? null,
    needsFetch: !isProfileFresh,
    needsPosts: hasProfile && !isFresh(cached?.postsFetchedAt, COMPANY_TTL_DAYS, now),
    needsNews: hasProfile && entitlements.companyNews && !isFresh(cached?.newsFetchedAt, COMPANY_TTL_DAYS, now),
    needsDecisionMakers:
      hasProfile && entitlements.decisionMakers && !isFresh(cached?.decisionMakersFetchedAt, DECISION_MAKERS_TTL_DAYS, now),
    needsAI: cached?.profile != null && ((hasProfile && cached.insights == null) || isInOtherLanguage(cached, language)),
  };
}

/**
 * Every part fresh: the enrichment steps would ask no provider (no fetch, no
 * posts, news, decision makers or technologies to refresh, the company known).
 * The model may still have texts to write.
 */
export function hasNothingToFetch(plan: ResearchPlan): boolean {
  const { prospect, company } = plan;
  if (prospect.needsFetch || prospect.needsPosts || company === null) return false;
  const hasTechnologiesToDetect = company.profile?.website != null && company.technologies === null;
  return !company.needsFetch && !company.needsPosts && !company.needsNews && !company.needsDecisionMakers && !hasTechnologiesToDetect;
}

/**
 * Every part fresh and nothing for the model to write: the job can be answered
 * from the cache alone, exactly as the workflow's steps would answer it.
 */
export function isFullCacheHit(plan: ResearchPlan): boolean {
  return hasNothingToFetch(plan) && !plan.prospect.needsAI && !plan.company!.needsAI;
}

/** The outcome of a full cache hit: the cached parts, nothing refreshed. */
export function cacheHitOutcome(plan: ResearchPlan): ResearchOutcome {
  const { prospect, company } = plan;
  return {
    prospect: {
      profile: prospect.profile,
      source: prospect.source,
      isRefreshed: false,
      posts: prospect.posts,
      arePostsRefreshed: false,
      insights: prospect.insights,
      areInsightsRefreshed: false,
    },
    company: company && {
      companyKey: company.companyKey,
      profile: company.profile,
      source: company.source,
      // Only this run's provider calls (`_meta.company.apis_called`): none.
      apisCalled: [],
      isRefreshed: false,
      technologies: company.technologies,
      posts: company.posts,
      arePostsRefreshed: false,
      news: company.news,
      isNewsRefreshed: false,
      decisionMakers: company.decisionMakers,
      areDecisionMakersRefreshed: false,
      insights: company.insights,
      areInsightsRefreshed: false,
    },
    ai: { source: null, usage: null, language: null },
  };
}
