import type {
  CompanyProfile,
  CompanyQuery,
  DecisionMakerProfile,
  Lookup,
  NewsArticle,
  PersonProfile,
  PersonQuery,
  SocialPost,
} from '../../domain/enrichment/enrichment.ts';

/**
 * The provider port of the research pipeline: one method per enrichment part.
 * Implementations run a waterfall over real provider clients; a part that the
 * providers documentedly do not know resolves to `{ value: null }`. A provider
 * that could not answer (down, rate-limited past the budget, bad key, exhausted
 * plan, refused request, reply without its documented collection) is logged
 * and skipped; when no other provider found the part, the lookup rejects, so
 * the part is unavailable this run and never cached as "not found".
 */
export interface EnrichmentSources {
  findPerson(query: PersonQuery): Promise<Lookup<PersonProfile>>;
  findPersonPosts(person: { socialUrl: string }): Promise<Lookup<SocialPost[]>>;
  findCompany(query: CompanyQuery): Promise<Lookup<CompanyProfile>>;
  findCompanyPosts(company: { socialUrl: string | null; domain: string | null }): Promise<Lookup<SocialPost[]>>;
  /** At most 3 articles, at most 12 months old relative to `now`. */
  findCompanyNews(company: { name: string; domain: string | null }, now: Date): Promise<Lookup<NewsArticle[]>>;
  /** VP, Director and C-level people at the company. */
  findDecisionMakers(company: { name: string; domain: string | null; socialUrl: string | null }): Promise<Lookup<DecisionMakerProfile[]>>;
  /** Technologies detected on the company's own website. */
  detectTechnologies(website: string): Promise<Lookup<string[]>>;
}
