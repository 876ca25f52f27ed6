// Values that travel between the research workflow and its activities. Types
// only: the workflow bundle imports this file.
import type {
  CompanyProfile,
  CompanyQuery,
  DecisionMakerProfile,
  NewsArticle,
  PersonProfile,
  PersonQuery,
  SocialPost,
} from '../enrichment/enrichment.ts';
import type { CompanyInsights, InsightsInput, ProspectInsights } from './insights.ts';
import type { Language } from './languages.ts';

/** What the cache holds for the prospect and which parts must be refreshed (docs/api.md#freshness flags). */
export interface ProspectPlan {
  profile: PersonProfile | null;
  source: string | null;
  posts: SocialPost[] | null;
  insights: ProspectInsights | null;
  /** `fetch`: call the providers for the person. */
  needsFetch: boolean;
  /** `needsPosts`: re-fetch the person's posts. */
  needsPosts: boolean;
  /** `needsAI`: regenerate the prospect half of the insights. */
  needsAI: boolean;
}

export interface CompanyPlan {
  companyKey: string;
  profile: CompanyProfile | null;
  source: string | null;
  apisCalled: string[];
  technologies: string[] | null;
  posts: SocialPost[] | null;
  news: NewsArticle[] | null;
  decisionMakers: DecisionMakerProfile[] | null;
  insights: CompanyInsights | null;
  needsFetch: boolean;
  needsPosts: boolean;
  needsNews: boolean;
  needsDecisionMakers: boolean;
  needsAI: boolean;
}

export interface ResearchPlan {
  researchId: string;
  /** The job has ended (a repeated run, or a full cache hit answered by `startResearch`): nothing to do. */
  hasEnded: boolean;
  personQuery: PersonQuery;
  /** Known before the person is found: from the e-mail domain or the hints. */
  companyQuery: CompanyQuery | null;
  entitlements: { decisionMakers: boolean; companyNews: boolean };
  insightsContext: Pick<InsightsInput, 'language' | 'productContext'>;
  /**
   * The account's key for its cap on calls in flight (activities/call-turns.ts); absent from
   * plans made before there was one, whose runs replay uncapped.
   */
  account?: string;
  prospect: ProspectPlan;
  /** Null when the company key is unknown until the person is found. */
  company: CompanyPlan | null;
}

/** The prospect as it is to be stored; `…Refreshed` says which timestamps move. */
export interface ProspectOutcome {
  profile: PersonProfile | null;
  source: string | null;
  isRefreshed: boolean;
  posts: SocialPost[] | null;
  arePostsRefreshed: boolean;
  insights: ProspectInsights | null;
  areInsightsRefreshed: boolean;
}

export interface CompanyOutcome {
  companyKey: string;
  profile: CompanyProfile | null;
  source: string | null;
  apisCalled: string[];
  isRefreshed: boolean;
  technologies: string[] | null;
  posts: SocialPost[] | null;
  arePostsRefreshed: boolean;
  news: NewsArticle[] | null;
  isNewsRefreshed: boolean;
  decisionMakers: DecisionMakerProfile[] | null;
  areDecisionMakersRefreshed: boolean;
  insights: CompanyInsights | null;
  areInsightsRefreshed: boolean;
}

export interface ResearchOutcome {
  prospect: ProspectOutcome;
  company: CompanyOutcome | null;
  ai: {
    source: string | null;
    usage: { calls: number; promptTokens: number; completionTokens: number } | null;
    /** The language the model was asked to write in; absent in outcomes built before it was recorded. */
    language?: Language | null;
  };
}
