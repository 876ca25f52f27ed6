import type { Language } from './languages.ts';
import type { ProductContext } from './product-context.ts';
import type { CompanyProfile, NewsArticle, PersonProfile, SocialPost } from '../enrichment/enrichment.ts';

// List sizes of AI output are exact (docs/decisions.md#data-and-ai, docs/api.md#limits).
export const OPENING_TALK_COUNT = 3;
export const COMPANY_LIST_COUNT = 4; // problems, services, icp, synergy_points, insights
export const DISCOVERY_QUESTION_COUNT = 3;

export interface InsightsInput {
  language: Language;
  productContext: ProductContext;
  person: PersonProfile | null;
  personPosts: SocialPost[];
  company: CompanyProfile | null;
  companyPosts: SocialPost[];
  news: NewsArticle[];
  technologies: string[];
  /** Which halves to (re)generate; the other half is left null (cache flag `needsAI`). */
  needs: { prospect: boolean; company: boolean };
  /** Whose job this is, for the account's cap on model calls in flight; never part of a prompt. */
  account?: string;
}

export interface ProspectInsights {
  /** The person's title in English (docs/api.md#the-prospect), translated when the source is not. */
  titleEnglish: string | null;
  summary: string;
  openingTalk: string[];
  /** One summary per input post, same order. */
  postSummaries: string[];
}

export interface CompanyInsights {
  /** The company description in English (docs/api.md#the-company), translated when the source is not. */
  descriptionEnglish: string | null;
  problems: string[];
  services: string[];
  icp: string[];
  synergyPoints: string[];
  discoveryQuestions: string[];
  insights: string[];
  /** One summary per input news article, same order. */
  newsSummaries: string[];
  /** One summary per input company post, same order. */
  postSummaries: string[];
}

export interface ModelUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
}

export interface InsightsResult {
  prospect: ProspectInsights | null;
  company: CompanyInsights | null;
  usage: ModelUsage;
  /** `sandbox` when the local stand-in answered, else the provider name. */
  source: string;
  model: string;
}

/** Runs one model call when its turn comes (the account's cap on calls in flight); the default runs it at once. */
export type ModelCallTurn = <T>(call: () => Promise<T>) => Promise<T>;

/** The AI port of the research pipeline. Rejects when the model stays unusable after retries. */
export interface InsightsGenerator {
  generate(input: InsightsInput, turn?: ModelCallTurn): Promise<InsightsResult>;
}
