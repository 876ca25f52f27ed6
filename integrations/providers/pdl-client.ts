import { z } from 'zod';
import type { CompanyProfile, CompanyQuery, PersonProfile, PersonQuery } from '../../domain/enrichment.ts';
import type { ProviderEndpoint } from './config.ts';
import { requestJson, type HttpDeps } from './http.ts';
import { canonicalProfileUrl, domainOf, fullDate, parseReply, text, num, websiteUrl } from './reply-parsing.ts';

// People Data Labs v5 Person and Company Enrichment APIs.

export const PDL_APIS = { person: 'pdl.person', company: 'pdl.company' } as const;

const ZPerson = z.object({
  data: z.object({
    full_name: text, job_title: text, job_company_name: text, job_company_website: text,
    job_company_linkedin_url: text, linkedin_url: text, job_start_date: text, location_name: text, work_email: text,
  }),
});

const ZCompany = z.object({
  name: text, display_name: text, summary: text, linkedin_url: text, website: text, industry: text,
  location: z.object({ name: text }).nullish().catch(null), inferred_revenue: text, size: text, employee_count: num,
});

export interface PdlClient {
  findPerson(query: PersonQuery): Promise<PersonProfile | null>;
  findCompany(query: CompanyQuery): Promise<CompanyProfile | null>;
}

export function createPdlClient(endpoint: ProviderEndpoint, http: HttpDeps): PdlClient {
  const get = (path: string, params: Record<string, string | undefined>, api: string) => {
    const url = new URL(`${endpoint.baseUrl}${path}`);
    for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
    // PDL lower-cases text unless asked not to.
    url.searchParams.set('titlecase', 'true');
    return requestJson(http, { api, url: url.href, headers: { 'X-Api-Key': endpoint.apiKey } });
  };

  return {
    async findPerson(query) {
      const reply = await get('/v5/person/enrich', {
        email: query.email, name: query.prospectName, company: query.companyName, profile: query.socialUrl, min_likelihood: '5',
      }, PDL_APIS.person);
      if (reply.status === 404) return null;
      const { data } = parseReply(ZPerson, reply.body, PDL_APIS.person);
      if (!data.full_name) return null;
      return {
        fullName: data.full_name,
        title: data.job_title,
        companyName: data.job_company_name,
        companyDomain: domainOf(data.job_company_website),
        companySocialUrl: canonicalProfileUrl(data.job_company_linkedin_url),
        email: query.email,
        socialUrl: canonicalProfileUrl(data.linkedin_url),
        photoUrl: null,
        lastRoleStart: fullDate(data.job_start_date),
        location: data.location_name,
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
        hq: company.location?.name ?? null,
        revenue: company.inferred_revenue,
        employees: company.size ?? (company.employee_count === null ? null : String(company.employee_count)),
        clientsCount: null,
      };
    },
  };
}
