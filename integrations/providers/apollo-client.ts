import { z } from 'zod';
import { displayPlace, displayTitle, joinPlace } from '../../domain/enrichment/display-text.ts';
import type { CompanyProfile, CompanyQuery, PersonProfile, PersonQuery } from '../../domain/enrichment/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, retryAfterMs, type HttpDeps, type ProviderFailureKind, type RateLimitReset } from './http.ts';
import { canonicalProfileUrl, fullDate, num, parseReply, text, tolerantList, bool, websiteUrl } from './reply-parsing.ts';

// Apollo.io REST API v1, as documented (auth: `x-api-key` header):
//   People Enrichment        POST /api/v1/people/match?email=…         https://docs.apollo.io/reference/people-enrichment
//   Organization Enrichment  GET  /api/v1/organizations/enrich?domain=…  https://docs.apollo.io/reference/organization-enrichment
//   Rate limits              x-minute/hourly/daily-requests-left        https://docs.apollo.io/reference/rate-limits
// Both enrichment endpoints take their parameters in the query string.
// Decision makers do not come from Apollo: its People API Search
// (`/mixed_people/api_search`) returns no profile URL, no photo and an
// obfuscated last name, and needs a master key (see pdl-client.ts).

export const APOLLO_APIS = {
  peopleMatch: 'apollo.people_match',
  organizationEnrich: 'apollo.organization_enrich',
} as const;

const ZOrganization = z.object({
  name: text, website_url: text, linkedin_url: text, primary_domain: text, industry: text,
  estimated_num_employees: num, annual_revenue_printed: text, short_description: text,
  raw_address: text, city: text, state: text, country: text,
});

const ZPerson = z.object({
  name: text, first_name: text, last_name: text, title: text, linkedin_url: text, photo_url: text,
  city: text, state: text, country: text,
  organization: ZOrganization.partial().nullish().catch(null),
  employment_history: tolerantList(z.object({ current: bool, organization_name: text, start_date: text })),
});

// `person` is documented on every 200; null when nothing matched.
const ZMatch = z.object({ person: ZPerson.nullable() });
// An unknown domain answers 200 without an organization.
const ZEnrich = z.object({ organization: ZOrganization.nullish().catch(null) });

type ApolloPerson = z.output<typeof ZPerson>;

// Apollo signals an exhausted plan with a 403/422 whose message talks about credits.
function classify(status: number, body: unknown): ProviderFailureKind | undefined {
  const message = JSON.stringify(body ?? '').toLowerCase();
  if ((status === 403 || status === 422) && /credit|quota|plan/.test(message)) return 'quota';
  return undefined;
}

const MINUTE_MS = 60_000;

/**
 * Apollo's limits are fixed windows per minute, hour and day, and a 429 carries
 * the counters of every window. The emptied window says how long to wait: a
 * minute at most, or an hour or a day (beyond any activity's budget).
 */
export function apolloRateLimitReset(headers: Headers, nowMs: number): RateLimitReset | null {
  const retryAfter = retryAfterMs(headers.get('retry-after'), nowMs);
  const isEmpty = (name: string) => headers.get(name)?.trim() === '0';
  if (isEmpty('x-daily-requests-left')) return { waitMs: retryAfter ?? 24 * 60 * MINUTE_MS, window: 'day' };
  if (isEmpty('x-hourly-requests-left')) return { waitMs: retryAfter ?? 60 * MINUTE_MS, window: 'hour' };
  if (isEmpty('x-minute-requests-left')) return { waitMs: retryAfter ?? MINUTE_MS - (nowMs % MINUTE_MS), window: 'minute' };
  return retryAfter === null ? null : { waitMs: retryAfter };
}

const fullNameOf = (p: ApolloPerson) => p.name ?? ([p.first_name, p.last_name].filter(Boolean).join(' ') || null);

export interface ApolloClient {
  findPerson(query: PersonQuery): Promise<PersonProfile | null>;
  findCompany(query: CompanyQuery): Promise<CompanyProfile | null>;
}

export function createApolloClient(endpoint: ProviderEndpoint, http: HttpDeps): ApolloClient {
  const call = (method: 'GET' | 'POST', path: string, params: Record<string, string | undefined>, api: string) => {
    const url = new URL(`${endpoint.baseUrl}/api/v1${path}`);
    for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
    return requestJson(http, { api, method, url: url.href, headers: { 'x-api-key': endpoint.apiKey, 'cache-control': 'no-cache' }, classify, rateLimitReset: apolloRateLimitReset });
  };

  return {
    async findPerson(query) {
      const [firstName, ...rest] = query.prospectName?.trim().split(/\s+/) ?? [];
      const reply = await call('POST', '/people/match', {
        email: query.email, first_name: firstName, last_name: rest.join(' ') || undefined,
        organization_name: query.companyName, linkedin_url: query.socialUrl,
        reveal_personal_emails: 'false', reveal_phone_number: 'false',
      }, APOLLO_APIS.peopleMatch);
      if (reply.status === 404) return null;
      const person = parseReply(ZMatch, reply.body, APOLLO_APIS.peopleMatch).person;
      const fullName = person ? fullNameOf(person) : null;
      if (!person || !fullName) return null;
      const current = person.employment_history.find((job) => job.current);
      return {
        fullName,
        title: displayTitle(person.title),
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
      const reply = await call('GET', '/organizations/enrich', { domain: query.domain }, APOLLO_APIS.organizationEnrich);
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
        hq: displayPlace(org.raw_address) ?? joinPlace(org.city, org.state, org.country),
        revenue: org.annual_revenue_printed,
        employees: org.estimated_num_employees === null ? null : String(org.estimated_num_employees),
        clientsCount: null,
      };
    },
  };
}
