import type { CompanyProfile, CompanyQuery, DecisionMakerProfile, Lookup, NewsArticle, PersonProfile, PersonQuery, SocialPost } from './enrichment.ts';
import type { CompanyOutcome, CompanyPlan, ResearchPlan } from '../research/pipeline.ts';
import { companyFromEmployer } from './company-from-employer.ts';

// Which enrichment parts a job fetches, in which order, and how cached and
// fresh parts merge (docs/api.md#freshness; docs/architecture.md#the-research-path). Pure: the
// research workflow runs it over one activity per part (runs recorded before
// every part moved into one activity), and the `lookupParts` activity runs it with the parts' HTTP calls
// side by side inside one activity. Each runner says how a part is called, and
// what a part that fails becomes (null: optional parts degrade, docs/architecture.md#the-research-path).

/** The enrichment parts, as the progress query lists them when done. */
export type EnrichmentPart = 'person' | 'person_posts' | 'company' | 'technologies' | 'company_posts' | 'news' | 'decision_makers';

/** One call per part: "not found" is a value (`{ value: null }`); an unavailable part rejects. */
export interface EnrichmentLookups {
  fetchPerson(query: PersonQuery): Promise<Lookup<PersonProfile>>;
  fetchPersonPosts(person: { socialUrl: string }): Promise<Lookup<SocialPost[]>>;
  fetchCompany(query: CompanyQuery): Promise<Lookup<CompanyProfile>>;
  fetchCompanyPosts(company: { socialUrl: string | null; domain: string | null }): Promise<Lookup<SocialPost[]>>;
  fetchCompanyNews(company: { name: string; domain: string | null }): Promise<Lookup<NewsArticle[]>>;
  fetchDecisionMakers(company: { name: string; domain: string | null; socialUrl: string | null }): Promise<Lookup<DecisionMakerProfile[]>>;
  detectTechnologies(website: string): Promise<Lookup<string[]>>;
}

export interface EnrichmentRunner {
  lookups: EnrichmentLookups;
  /** The cache plan of a company found only through the person. */
  planCompany(researchId: string, query: CompanyQuery): Promise<CompanyPlan>;
  /** Runs one optional part: a part that stays unavailable resolves to null, and the job goes on without it. */
  optional<T>(part: EnrichmentPart, run: () => Promise<T>): Promise<T | null>;
  /** A company no company endpoint knows is taken from the person's record of their employer (a replay gate in the workflow). */
  takesCompanyFromEmployer(): boolean;
}

export interface PersonState {
  profile: PersonProfile | null;
  source: string | null;
  isRefreshed: boolean;
}

export interface PersonPostsState {
  posts: SocialPost[] | null;
  arePostsRefreshed: boolean;
}

export type CompanyState = Omit<CompanyOutcome, 'insights' | 'areInsightsRefreshed'> & { plan: CompanyPlan };

export interface EnrichedParts {
  person: PersonState;
  posts: PersonPostsState;
  company: CompanyState | null;
}

/** Independent chains side by side: person → posts, and (person →) company → its parts. */
export async function enrichParts(runner: EnrichmentRunner, plan: ResearchPlan): Promise<EnrichedParts> {
  const person = enrichPerson(runner, plan);
  const [personState, posts, company] = await Promise.all([
    person,
    person.then((state) => enrichPersonPosts(runner, plan, state)),
    resolveCompany(runner, plan, person).then((resolved) =>
      resolved ? enrichCompany(runner, plan, resolved.companyPlan, resolved.query, person) : null,
    ),
  ]);
  return { person: personState, posts, company };
}

export async function enrichPerson(runner: EnrichmentRunner, plan: ResearchPlan): Promise<PersonState> {
  const cached = { profile: plan.prospect.profile, source: plan.prospect.source, isRefreshed: false };
  if (!plan.prospect.needsFetch) return cached;
  const lookup = await runner.optional('person', () => runner.lookups.fetchPerson(plan.personQuery));
  return lookup ? { profile: lookup.value, source: lookup.source, isRefreshed: true } : cached;
}

export async function enrichPersonPosts(runner: EnrichmentRunner, plan: ResearchPlan, person: PersonState): Promise<PersonPostsState> {
  const cached = { posts: plan.prospect.posts, arePostsRefreshed: false };
  const socialUrl = person.profile?.socialUrl;
  // A refreshed person without a profile URL has no posts: cached ones belonged to the old record.
  if (!socialUrl) return person.isRefreshed ? { posts: null, arePostsRefreshed: true } : cached;
  if (!(plan.prospect.needsPosts || person.isRefreshed)) return cached;
  const lookup = await runner.optional('person_posts', () => runner.lookups.fetchPersonPosts({ socialUrl }));
  return lookup ? { posts: lookup.value ?? [], arePostsRefreshed: true } : cached;
}

/**
 * The company plan: known up front from the e-mail or hints (then the company
 * is fetched alongside the person), else from the person once found.
 */
export async function resolveCompany(
  runner: EnrichmentRunner,
  plan: ResearchPlan,
  person: Promise<PersonState>,
): Promise<{ companyPlan: CompanyPlan; query: CompanyQuery } | null> {
  if (plan.company && plan.companyQuery) return { companyPlan: plan.company, query: plan.companyQuery };
  const profile = (await person).profile;
  const query: CompanyQuery = {
    domain: profile?.companyDomain ?? undefined,
    // docs/api.md#post-research: a company page URL given by the caller overrides the detected one.
    socialUrl: plan.companyQuery?.socialUrl ?? profile?.companySocialUrl ?? undefined,
    name: profile?.companyName ?? plan.personQuery.companyName,
  };
  if (!query.domain && !query.socialUrl && !query.name) return null;
  return { companyPlan: await runner.planCompany(plan.researchId, query), query };
}

export async function enrichCompany(
  runner: EnrichmentRunner,
  plan: ResearchPlan,
  companyPlan: CompanyPlan,
  query: CompanyQuery,
  person?: Promise<PersonState>,
): Promise<CompanyState> {
  let { profile, source } = companyPlan;
  // Only this run's provider calls: `_meta.company.apis_called` of a cache hit is empty.
  let apisCalled: string[] = [];
  let isRefreshed = false;
  if (companyPlan.needsFetch) {
    const lookup = await runner.optional('company', () => runner.lookups.fetchCompany(query));
    if (lookup) ({ value: profile, source, apisCalled } = lookup);
    isRefreshed = lookup !== null;
    if (lookup && !lookup.value && person && runner.takesCompanyFromEmployer()) {
      const personState = await person;
      const employer = companyFromEmployer(personState.profile, query);
      if (employer) ({ profile, source } = { profile: employer, source: personState.source });
    }
  }
  const state: CompanyState = {
    plan: companyPlan,
    companyKey: companyPlan.companyKey,
    profile,
    source,
    apisCalled: [...apisCalled],
    isRefreshed,
    technologies: companyPlan.technologies,
    posts: companyPlan.posts,
    arePostsRefreshed: false,
    news: companyPlan.news,
    isNewsRefreshed: false,
    decisionMakers: companyPlan.decisionMakers,
    areDecisionMakersRefreshed: false,
  };
  if (!profile) return isRefreshed ? clearedParts(state) : state;
  await Promise.all([
    refreshTechnologies(runner, state, profile),
    refreshCompanyPosts(runner, state, profile),
    plan.entitlements.companyNews && (companyPlan.needsNews || isRefreshed) ? refreshNews(runner, state, profile) : null,
    plan.entitlements.decisionMakers && (companyPlan.needsDecisionMakers || isRefreshed) ? refreshDecisionMakers(runner, state, profile) : null,
  ]);
  return state;
}

/** A company refreshed to "not found": its cached parts belonged to the old record and are overwritten. */
function clearedParts(state: CompanyState): CompanyState {
  return {
    ...state,
    technologies: null,
    posts: null,
    arePostsRefreshed: true,
    news: null,
    isNewsRefreshed: true,
    decisionMakers: [],
    areDecisionMakersRefreshed: true,
  };
}

function record<T>(state: CompanyState, lookup: Lookup<T>): T | null {
  state.apisCalled.push(...lookup.apisCalled.filter((api) => !state.apisCalled.includes(api)));
  return lookup.value;
}

async function refreshTechnologies(runner: EnrichmentRunner, state: CompanyState, profile: CompanyProfile): Promise<void> {
  const website = profile.website;
  if (!website || (!state.isRefreshed && state.technologies !== null)) return;
  const lookup = await runner.optional('technologies', () => runner.lookups.detectTechnologies(website));
  if (lookup) state.technologies = record(state, lookup) ?? [];
}

async function refreshCompanyPosts(runner: EnrichmentRunner, state: CompanyState, profile: CompanyProfile): Promise<void> {
  if (!state.isRefreshed && !state.plan.needsPosts) return;
  const lookup = await runner.optional('company_posts', () =>
    runner.lookups.fetchCompanyPosts({ socialUrl: profile.socialUrl, domain: profile.domain }),
  );
  if (lookup) {
    state.posts = record(state, lookup) ?? [];
    state.arePostsRefreshed = true;
  }
}

async function refreshNews(runner: EnrichmentRunner, state: CompanyState, profile: CompanyProfile): Promise<void> {
  const lookup = await runner.optional('news', () => runner.lookups.fetchCompanyNews({ name: profile.name, domain: profile.domain }));
  if (lookup) {
    state.news = record(state, lookup) ?? [];
    state.isNewsRefreshed = true;
  }
}

async function refreshDecisionMakers(runner: EnrichmentRunner, state: CompanyState, profile: CompanyProfile): Promise<void> {
  const lookup = await runner.optional('decision_makers', () =>
    runner.lookups.fetchDecisionMakers({ name: profile.name, domain: profile.domain, socialUrl: profile.socialUrl }),
  );
  if (lookup) {
    state.decisionMakers = record(state, lookup) ?? [];
    state.areDecisionMakersRefreshed = true;
  }
}
