import { personPosts, PROMPT_INJECTIONS } from './posts-and-news.ts';
import { generateWorld, type Coverage, type WorldCompany, type WorldData, type WorldPerson, type WorldSize } from './generate-world.ts';

export type ProviderName = 'pdl' | 'apollo';

export interface PeopleFilter {
  knownTo?: Coverage;
  nonEnglishTitle?: boolean;
  withPosts?: boolean;
  seniority?: WorldPerson['seniority'];
  /** Only people whose company is known to this provider set. */
  companyKnownTo?: Coverage;
  /** People with at least one post that tries to instruct a language model. */
  withPromptInjection?: boolean;
}

export interface World extends WorldData {
  personByEmail(email: string): WorldPerson | undefined;
  personByProfile(url: string): WorldPerson | undefined;
  personByName(fullName: string, company: string): WorldPerson | undefined;
  companyByDomain(domain: string): WorldCompany | undefined;
  companyByName(name: string): WorldCompany | undefined;
  companyByProfile(url: string): WorldCompany | undefined;
  peopleOf(company: WorldCompany): WorldPerson[];
  /** Deterministic examples for tests: the first `limit` matches in world order. */
  samplePeople(filter?: PeopleFilter, limit?: number): WorldPerson[];
  sampleCompanies(filter?: { knownTo?: Coverage }, limit?: number): WorldCompany[];
  /** A well-formed address at a real company domain that matches no person. */
  unmatchedEmail(company: WorldCompany): string;
}

export function isKnownTo(coverage: Coverage, provider: ProviderName): boolean {
  return coverage === 'both' || coverage === provider;
}

/** `https://www.linkedin.com/in/x/` and `linkedin.com/in/x` name the same profile. */
export function profileKey(url: string): string {
  return url.trim().toLowerCase().replace(/^https?:\/\//, '').replace(/^www\./, '').replace(/\/+$/, '');
}

export function createWorld(options: { seed?: number; now?: Date; size?: WorldSize } = {}): World {
  const seed = options.seed ?? 42;
  // Day-truncated so a world built twice on one day has identical dates.
  const now = options.now ?? new Date(new Date().toISOString().slice(0, 10) + 'T12:00:00Z');
  const data = generateWorld(seed, now, options.size);
  const byEmail = new Map(data.people.map((p) => [p.email, p]));
  const byProfile = new Map(data.people.map((p) => [profileKey(p.linkedinUrl), p]));
  const byDomain = new Map(data.companies.map((c) => [c.domain, c]));
  const byCompanyName = new Map(data.companies.map((c) => [c.name.toLowerCase(), c]));
  const byCompanyProfile = new Map(data.companies.map((c) => [profileKey(c.linkedinUrl), c]));

  const peopleOf = (company: WorldCompany) => data.people.slice(company.firstPerson, company.firstPerson + company.peopleCount);

  const matches = (person: WorldPerson, filter: PeopleFilter) =>
    (filter.knownTo === undefined || person.coverage === filter.knownTo) &&
    (filter.nonEnglishTitle === undefined || person.isEnglishTitle !== filter.nonEnglishTitle) &&
    (filter.withPosts === undefined || (person.postCount > 0) === filter.withPosts) &&
    (filter.seniority === undefined || person.seniority === filter.seniority) &&
    (filter.companyKnownTo === undefined || data.companies[person.company].coverage === filter.companyKnownTo) &&
    (filter.withPromptInjection === undefined || hasInjection(person) === filter.withPromptInjection);
  const hasInjection = (person: WorldPerson) =>
    personPosts(data, person).some((post) => PROMPT_INJECTIONS.some((text) => post.text.includes(text)));

  return {
    ...data,
    personByEmail: (email) => byEmail.get(email.trim().toLowerCase()),
    personByProfile: (url) => byProfile.get(profileKey(url)),
    personByName(fullName, company) {
      const wanted = company.trim().toLowerCase();
      const target = byDomain.get(wanted) ?? byCompanyName.get(wanted);
      if (!target) return undefined;
      const name = fullName.trim().toLowerCase();
      return peopleOf(target).find((p) => p.fullName.toLowerCase() === name);
    },
    companyByDomain: (domain) => byDomain.get(domain.trim().toLowerCase().replace(/^www\./, '')),
    companyByName: (name) => byCompanyName.get(name.trim().toLowerCase()),
    companyByProfile: (url) => byCompanyProfile.get(profileKey(url)),
    peopleOf,
    samplePeople(filter = {}, limit = 10) {
      const found: WorldPerson[] = [];
      for (const person of data.people) {
        if (matches(person, filter)) found.push(person);
        if (found.length >= limit) break;
      }
      return found;
    },
    sampleCompanies(filter = {}, limit = 10) {
      return data.companies.filter((c) => filter.knownTo === undefined || c.coverage === filter.knownTo).slice(0, limit);
    },
    unmatchedEmail: (company) => `no.such.person.${company.index}@${company.domain}`,
  };
}
