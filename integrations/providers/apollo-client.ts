import { z } from 'zod';
import type { CompanyProfile, CompanyQuery, DecisionMakerProfile, PersonProfile, PersonQuery } from '../../domain/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps, type ProviderFailureKind } from './http.ts';
import { canonicalProfileUrl, fullDate, num, parseReply, text, tolerantList, bool, websiteUrl } from './reply-parsing.ts';

// Apollo.io v1: People Enrichment (`people/match`), Organization Enrichment
// and People Search (`mixed_people/search`) for decision makers.

export const APOLLO_APIS = {
  peopleMatch: 'apollo.people_match',
  organizationEnrich: 'apollo.organization_enrich',
  peopleSearch: 'apollo.people_search',
} as const;

/** Apollo's seniority values that mean VP, Director or C-level. */
export const DECISION_MAKER_SENIORITIES = ['c_suite', 'vp', 'director'] as const;

const ZOrganization = z.object({
  name: text, website_url: text, linkedin_url: text, primary_domain: text, industry: text,
  estimated_num_employees: num, annual_revenue_printed: text, short_description: text,
  raw_address: text, city: text, state: text, country: text,
});

const ZPerson = z.object({
  name: text, first_name: text, last_name: text, title: text, linkedin_url: text, photo_url: text,
  city: text, state: text, country: text, seniority: text,
  organization: ZOrganization.partial().nullish().catch(null),
  employment_history: tolerantList(z.object({ current: bool, organization_name: text, start_date: text })),
});

const ZMatch = z.object({ person: ZPerson.nullish().catch(null) });
const ZEnrich = z.object({ organization: ZOrganization.nullish().catch(null) });
const ZSearch = z.object({ people: tolerantList(ZPerson) });

type ApolloPerson = z.output<typeof ZPerson>;

// Apollo signals an exhausted plan with a 403/422 whose message talks about credits.
function classify(status: number, body: unknown): ProviderFailureKind | undefined {
  const message = JSON.stringify(body ?? '').toLowerCase();
  if ((status === 403 || status === 422) && /credit|quota|plan/.test(message)) return 'quota';
  return undefined;
}

const joinPlace = (...parts: (string | null | undefined)[]) => parts.filter(Boolean).join(', ') || null;
const fullNameOf = (p: ApolloPerson) => p.name ?? ([p.first_name, p.last_name].filter(Boolean).join(' ') || null);

export interface ApolloClient {
  findPerson(query: PersonQuery): Promise<PersonProfile | null>;
  findCompany(query: CompanyQuery): Promise<CompanyProfile | null>;
  findDecisionMakers(company: { name: string; domain: string | null }): Promise<DecisionMakerProfile[] | null>;
}

export function createApolloClient(endpoint: ProviderEndpoint, http: HttpDeps): ApolloClient {
  const post = (path: string, body: Record<string, unknown>, api: string) =>
    requestJson(http, { api, method: 'POST', url: `${endpoint.baseUrl}/api/v1${path}`, headers: { 'x-api-key': endpoint.apiKey }, body, classify });

  return {
    async findPerson(query) {
      const [firstName, ...rest] = query.prospectName?.trim().split(/\s+/) ?? [];
      const reply = await post('/people/match', {
        email: query.email, first_name: firstName, last_name: rest.join(' ') || undefined,
        organization_name: query.companyName, linkedin_url: query.socialUrl,
      }, APOLLO_APIS.peopleMatch);
      if (reply.status === 404) return null;
      const person = parseReply(ZMatch, reply.body, APOLLO_APIS.peopleMatch).person;
      const fullName = person ? fullNameOf(person) : null;
      if (!person || !fullName) return null;
      const current = person.employment_history.find((job) => job.current);
      return {
        fullName,
        title: person.title,
        companyName: person.organization?.name ?? current?.organization_name ?? null,
        companyDomain: person.organization?.primary_domain ?? null,
        companySocialUrl: canonicalProfileUrl(person.organization?.linkedin_url ?? null),
        email: query.email,
        socialUrl: canonicalProfileUrl(person.linkedin_url),
        photoUrl: person.photo_url,
        lastRoleStart: fullDate(current?.start_date ?? null),
        location: joinPlace(person.city, person.state, person.country),
      };
    },

    async findCompany(query) {
      // Organization Enrichment works by domain only.
      if (!query.domain) return null;
      const reply = await post('/organizations/enrich', { domain: query.domain }, APOLLO_APIS.organizationEnrich);
      if (reply.status === 404) return null;
      const org = parseReply(ZEnrich, reply.body, APOLLO_APIS.organizationEnrich).organization;
      if (!org?.name) return null;
      return {
        name: org.name,
        description: org.short_description,
        socialUrl: canonicalProfileUrl(org.linkedin_url),
        website: websiteUrl(org.website_url),
        domain: org.primary_domain ?? query.domain,
        industry: org.industry,
        hq: org.raw_address ?? joinPlace(org.city, org.state, org.country),
        revenue: org.annual_revenue_printed,
        employees: org.estimated_num_employees === null ? null : String(org.estimated_num_employees),
        clientsCount: null,
      };
    },

    async findDecisionMakers(company) {
      if (!company.domain) return null;
      const reply = await post('/mixed_people/search', {
        q_organization_domains_list: [company.domain],
        person_seniorities: [...DECISION_MAKER_SENIORITIES],
        page: 1,
        per_page: 25,
      }, APOLLO_APIS.peopleSearch);
      if (reply.status === 404) return null;
      const { people } = parseReply(ZSearch, reply.body, APOLLO_APIS.peopleSearch);
      return people.flatMap((person): DecisionMakerProfile[] => {
        const fullName = fullNameOf(person);
        const socialUrl = canonicalProfileUrl(person.linkedin_url);
        // Search results are re-checked: only VP, Director and C-level are decision makers here.
        const isLeader = (DECISION_MAKER_SENIORITIES as readonly string[]).includes(person.seniority ?? '');
        if (!fullName || !socialUrl || !person.title || !isLeader) return [];
        return [{
          fullName, positionTitle: person.title, socialUrl, pictureUrl: person.photo_url,
          locationText: joinPlace(person.city, person.state, person.country),
          companyName: person.organization?.name ?? company.name,
        }];
      });
    },
  };
}
