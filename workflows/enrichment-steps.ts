import { isCancellation, log, patched } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { CompanyProfile, CompanyQuery, Lookup, PersonProfile, SocialPost } from '../domain/enrichment.ts';
import type { CompanyOutcome, CompanyPlan, ResearchPlan } from '../domain/research-pipeline.ts';
import { companyFromEmployer } from '../domain/company-from-employer.ts';

/**
 * A company that no company endpoint knows is taken from the person's record of
 * their employer. Runs recorded before it replay without it (STYLE.md "Known traps").
 */
const COMPANY_FROM_EMPLOYER_PATCH = 'company-from-employer-when-company-endpoints-miss';

export interface Enrichment {
  activities: Pick<Activities, 'fetchPerson' | 'fetchPersonPosts' | 'fetchCompany' | 'fetchCompanyPosts' | 'fetchCompanyNews' | 'fetchDecisionMakers' | 'detectTechnologies'>;
  jobs: Pick<Activities, 'planCompany'>;
  markDone(part: string): void;
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

/**
 * Optional parts degrade to null instead of failing the job (DESIGN.md); only
 * the deadline's cancellation passes through.
 */
async function optional<T>(steps: Enrichment, part: string, run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (isCancellation(error)) throw error;
    log.warn('enrichment part unavailable, continuing without it', { part, error: String(error) });
    return null;
  } finally {
    steps.markDone(part);
  }
}

export async function enrichPerson(steps: Enrichment, plan: ResearchPlan): Promise<PersonState> {
  const cached = { profile: plan.prospect.profile, source: plan.prospect.source, isRefreshed: false };
  if (!plan.prospect.needsFetch) return cached;
  const lookup = await optional(steps, 'person', () => steps.activities.fetchPerson(plan.personQuery));
  return lookup ? { profile: lookup.value, source: lookup.source, isRefreshed: true } : cached;
}

export async function enrichPersonPosts(steps: Enrichment, plan: ResearchPlan, person: PersonState): Promise<PersonPostsState> {
  const cached = { posts: plan.prospect.posts, arePostsRefreshed: false };
  const socialUrl = person.profile?.socialUrl;
  // A refreshed person without a profile URL has no posts: cached ones belonged to the old record.
  if (!socialUrl) return person.isRefreshed ? { posts: null, arePostsRefreshed: true } : cached;
  if (!(plan.prospect.needsPosts || person.isRefreshed)) return cached;
  const lookup = await optional(steps, 'person_posts', () => steps.activities.fetchPersonPosts({ socialUrl }));
  return lookup ? { posts: lookup.value ?? [], arePostsRefreshed: true } : cached;
}

/**
 * The company plan: known up front from the e-mail or hints (then the company
 * is fetched alongside the person), else from the person once found.
 */
export async function resolveCompany(
  steps: Enrichment,
  plan: ResearchPlan,
  person: Promise<PersonState>,
): Promise<{ companyPlan: CompanyPlan; query: CompanyQuery } | null> {
  if (plan.company && plan.companyQuery) return { companyPlan: plan.company, query: plan.companyQuery };
  const profile = (await person).profile;
  const query: CompanyQuery = {
    domain: profile?.companyDomain ?? undefined,
    // Spec §4.1: a company page URL given by the caller overrides the detected one.
    socialUrl: plan.companyQuery?.socialUrl ?? profile?.companySocialUrl ?? undefined,
    name: profile?.companyName ?? plan.personQuery.companyName,
  };
  if (!query.domain && !query.socialUrl && !query.name) return null;
  return { companyPlan: await steps.jobs.planCompany(plan.researchId, query), query };
}

export async function enrichCompany(
  steps: Enrichment,
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
    const lookup = await optional(steps, 'company', () => steps.activities.fetchCompany(query));
    if (lookup) ({ value: profile, source, apisCalled } = lookup);
    isRefreshed = lookup !== null;
    if (lookup && !lookup.value && person && patched(COMPANY_FROM_EMPLOYER_PATCH)) {
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
    refreshTechnologies(steps, state, profile),
    refreshCompanyPosts(steps, state, profile),
    plan.entitlements.companyNews && (companyPlan.needsNews || isRefreshed) ? refreshNews(steps, state, profile) : null,
    plan.entitlements.decisionMakers && (companyPlan.needsDecisionMakers || isRefreshed) ? refreshDecisionMakers(steps, state, profile) : null,
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

async function refreshTechnologies(steps: Enrichment, state: CompanyState, profile: CompanyProfile): Promise<void> {
  const website = profile.website;
  if (!website || (!state.isRefreshed && state.technologies !== null)) return;
  const lookup = await optional(steps, 'technologies', () => steps.activities.detectTechnologies(website));
  if (lookup) state.technologies = record(state, lookup) ?? [];
}

async function refreshCompanyPosts(steps: Enrichment, state: CompanyState, profile: CompanyProfile): Promise<void> {
  if (!state.isRefreshed && !state.plan.needsPosts) return;
  const lookup = await optional(steps, 'company_posts', () =>
    steps.activities.fetchCompanyPosts({ socialUrl: profile.socialUrl, domain: profile.domain }),
  );
  if (lookup) {
    state.posts = record(state, lookup) ?? [];
    state.arePostsRefreshed = true;
  }
}

async function refreshNews(steps: Enrichment, state: CompanyState, profile: CompanyProfile): Promise<void> {
  const lookup = await optional(steps, 'news', () => steps.activities.fetchCompanyNews({ name: profile.name, domain: profile.domain }));
  if (lookup) {
    state.news = record(state, lookup) ?? [];
    state.isNewsRefreshed = true;
  }
}

async function refreshDecisionMakers(steps: Enrichment, state: CompanyState, profile: CompanyProfile): Promise<void> {
  const lookup = await optional(steps, 'decision_makers', () =>
    steps.activities.fetchDecisionMakers({ name: profile.name, domain: profile.domain, socialUrl: profile.socialUrl }),
  );
  if (lookup) {
    state.decisionMakers = record(state, lookup) ?? [];
    state.areDecisionMakersRefreshed = true;
  }
}
