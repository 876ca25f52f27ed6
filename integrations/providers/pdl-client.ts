import { z } from 'zod';
import { displayPlace, displayTitle } from '../../domain/enrichment/display-text.ts';
import type { CompanyProfile, CompanyQuery, DecisionMakerProfile, PersonProfile, PersonQuery } from '../../domain/enrichment/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps, type RateLimitReset } from './http.ts';
import { canonicalProfileUrl, domainOf, fullDate, parseReply, requiredList, text, num, websiteUrl } from './reply-parsing.ts';

// People Data Labs v5, as documented:
//   Person Enrichment  GET  /v5/person/enrich   https://docs.peopledatalabs.com/docs/reference-person-enrichment-api
//   Company Enrichment GET  /v5/company/enrich  https://docs.peopledatalabs.com/docs/reference-company-enrichment-api
//   Person Search      POST /v5/person/search   https://docs.peopledatalabs.com/docs/reference-person-search-api
//                                               https://docs.peopledatalabs.com/docs/output-response-person-search-api
//   Errors             {status, error: {type, message}}  https://docs.peopledatalabs.com/docs/errors
//   Rate limits        x-ratelimit-reset (UTC timestamp)  https://docs.peopledatalabs.com/docs/usage-limits
// Auth: `X-Api-Key` header. 404 means "no record matched" on all three.

export const PDL_APIS = { person: 'pdl.person', company: 'pdl.company', personSearch: 'pdl.person_search' } as const;

/** PDL's `job_title_levels` that mean C-level, VP or Director (docs/api.md#decision-makers), owners and partners included. */
export const DECISION_MAKER_LEVELS = ['cxo', 'owner', 'partner', 'vp', 'director'] as const;
/** Person Search bills one credit per record returned: this caps a job's cost. */
export const MAX_DECISION_MAKERS = 10;

// Person record fields (https://docs.peopledatalabs.com/docs/fields).
const ZPersonRecord = z.object({
  full_name: text, job_title: text, job_title_levels: z.array(z.string()).nullish().catch(null),
  job_company_name: text, job_company_website: text, job_company_linkedin_url: text,
  linkedin_url: text, job_start_date: text, location_name: text,
});

// Person Enrichment reply: {status, likelihood, data}.
const ZPersonEnrich = z.object({ data: ZPersonRecord });

// Company Enrichment reply: the company record itself, flat, with status and likelihood.
const ZCompany = z.object({
  name: text, display_name: text, summary: text, linkedin_url: text, website: text, industry: text,
  location: z.object({ name: text }).nullish().catch(null), inferred_revenue: text, size: text, employee_count: num,
});

// Person Search reply: {status, data: [person records], scroll_token, total}.
const ZPersonSearch = z.object({ data: requiredList(ZPersonRecord), total: num });

/**
 * PDL documents `x-ratelimit-reset` as the UTC timestamp the window reopens
 * (`2022-02-23T20:19:55Z`); older replies sent epoch seconds. Both are read.
 */
export function pdlRateLimitReset(headers: Headers, nowMs: number): RateLimitReset | null {
  const value = headers.get('x-ratelimit-reset')?.trim();
  if (!value) return null;
  const atMs = /^\d{9,11}$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  return Number.isNaN(atMs) ? null : { waitMs: Math.max(0, atMs - nowMs), window: 'minute' };
}

export interface PdlClient {
  findPerson(query: PersonQuery): Promise<PersonProfile | null>;
  findCompany(query: CompanyQuery): Promise<CompanyProfile | null>;
  /** C-level, VP and Director people currently at the company; null when PDL knows none. */
  findDecisionMakers(company: { name: string; domain: string | null }): Promise<DecisionMakerProfile[] | null>;
}

export function createPdlClient(endpoint: ProviderEndpoint, http: HttpDeps): PdlClient {
  const headers = { 'X-Api-Key': endpoint.apiKey };
  const get = (path: string, params: Record<string, string | undefined>, api: string) => {
    const url = new URL(`${endpoint.baseUrl}${path}`);
    for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
    // PDL lower-cases text unless asked not to; displayTitle/displayPlace finish the job.
    url.searchParams.set('titlecase', 'true');
    return requestJson(http, { api, url: url.href, headers, rateLimitReset: pdlRateLimitReset });
  };

  return {
    async findPerson(query) {
      const reply = await get('/v5/person/enrich', {
        email: query.email, name: query.prospectName, company: query.companyName, profile: query.socialUrl, min_likelihood: '5',
      }, PDL_APIS.person);
      if (reply.status === 404) return null;
      const { data } = parseReply(ZPersonEnrich, reply.body, PDL_APIS.person);
      if (!data.full_name) return null;
      return {
        fullName: data.full_name,
        title: displayTitle(data.job_title),
        companyName: data.job_company_name,
        companyDomain: domainOf(data.job_company_website),
        companySocialUrl: canonicalProfileUrl(data.job_company_linkedin_url),
        email: query.email,
        socialUrl: canonicalProfileUrl(data.linkedin_url),
        photoUrl: null,
        lastRoleStart: fullDate(data.job_start_date),
        location: displayPlace(data.location_name),
      };
    },

    async findCompany(query) {
      if (!query.domain && !query.socialUrl && !query.name) return null;
      const reply = await get('/v5/company/enrich', { website: query.domain, profile: query.socialUrl, name: query.domain ? undefined : query.name }, PDL_APIS.company);
      if (reply.status === 404) return null;
      const company = parseReply(ZCompany, reply.body, PDL_APIS.company);
      const name = company.display_name ?? company.name;
      if (!name) return null;
      return {
        name,
        description: company.summary,
        socialUrl: canonicalProfileUrl(company.linkedin_url),
        website: websiteUrl(company.website),
        // Matched by domain: that is the company's domain whatever its website URL says.
        domain: query.domain ?? domainOf(company.website),
        industry: company.industry,
        hq: displayPlace(company.location?.name ?? null),
        revenue: company.inferred_revenue,
        employees: company.size ?? (company.employee_count === null ? null : String(company.employee_count)),
        clientsCount: null,
      };
    },

    async findDecisionMakers(company) {
      if (!company.domain) return null;
      // Elasticsearch syntax, as the Person Search reference documents it.
      const body = {
        query: { bool: { must: [
          { term: { job_company_website: company.domain } },
          { terms: { job_title_levels: [...DECISION_MAKER_LEVELS] } },
        ] } },
        size: MAX_DECISION_MAKERS,
        titlecase: true,
      };
      const reply = await requestJson(http, {
        api: PDL_APIS.personSearch, method: 'POST', url: `${endpoint.baseUrl}/v5/person/search`, headers, body, rateLimitReset: pdlRateLimitReset,
      });
      // Documented: a search that matches no record answers 404.
      if (reply.status === 404) return [];
      const { data } = parseReply(ZPersonSearch, reply.body, PDL_APIS.personSearch);
      return data.flatMap((person): DecisionMakerProfile[] => {
        const socialUrl = canonicalProfileUrl(person.linkedin_url);
        const title = displayTitle(person.job_title);
        // The query asked for these levels; a record outside them is not trusted to be one.
        const isLeader = (person.job_title_levels ?? []).some((level) => (DECISION_MAKER_LEVELS as readonly string[]).includes(level));
        if (!person.full_name || !socialUrl || !title || !isLeader) return [];
        return [{
          fullName: person.full_name, positionTitle: title, socialUrl, pictureUrl: null,
          locationText: displayPlace(person.location_name), companyName: person.job_company_name ?? company.name,
        }];
      });
    },
  };
}
