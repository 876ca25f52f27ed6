import type { WorldCompany, WorldPerson } from './generate-world.ts';
import { header, param, type ProviderApi, type Reply, type RequestContext } from './provider-api.ts';
import { isKnownTo, type World } from './world.ts';
import { rngFor } from './prng.ts';

// People Data Labs v5 shapes: GET with query parameters, `X-Api-Key` header,
// `{status, likelihood, data}` for a person, a flat record for a company,
// `{status, error: {type, message}}` for failures.

const bare = (url: string) => url.replace(/^https?:\/\/(www\.)?/, '').replace(/\/$/, '');
const LEVELS: Record<WorldPerson['seniority'], string> = { c_suite: 'cxo', vp: 'vp', director: 'director', manager: 'manager', senior: 'senior', entry: 'entry' };

function error(status: number, type: string, message: string, headers?: Record<string, string>): Reply {
  return { status, body: { status, error: { type, message } }, headers };
}

function caseOf(context: RequestContext) {
  // PDL returns lower-cased text unless `titlecase=true` is asked for.
  const titlecase = param(context, 'titlecase') === 'true';
  return (text: string | null) => (text === null ? text : titlecase ? text.replace(/(^|[\s,])\S/g, (m) => m.toUpperCase()) : text.toLowerCase());
}

function findPerson(world: World, context: RequestContext): { person: WorldPerson; likelihood: number } | null {
  const email = param(context, 'email');
  const profile = param(context, 'profile');
  const name = param(context, 'name');
  const company = param(context, 'company');
  const person = (email && world.personByEmail(email)) || (profile && world.personByProfile(profile)) || undefined;
  if (person) return { person, likelihood: email ? 9 : 8 };
  const byName = name && company ? world.personByName(name, company) : undefined;
  return byName ? { person: byName, likelihood: 6 } : null;
}

function personRecord(world: World, person: WorldPerson, context: RequestContext) {
  const company = world.companies[person.company];
  const rng = rngFor(world.seed, `pdl-gaps:${person.index}`);
  const as = caseOf(context);
  return {
    id: `pdl_${person.index.toString(36)}_${world.seed}`,
    full_name: as(person.fullName), first_name: as(person.firstName), last_name: as(person.lastName),
    linkedin_url: bare(person.linkedinUrl), linkedin_username: bare(person.linkedinUrl).split('/').pop(),
    work_email: person.email, job_title: as(person.title),
    job_title_levels: [LEVELS[person.seniority]],
    job_company_name: as(company.name), job_company_website: company.domain,
    job_company_linkedin_url: bare(company.linkedinUrl), job_company_industry: company.industry,
    job_company_size: company.employeeRange,
    // PDL often knows only the month a role started, sometimes not even that.
    job_start_date: rng.chance(0.3) ? null : rng.chance(0.5) ? person.roleStart.slice(0, 7) : person.roleStart,
    location_name: rng.chance(0.15) ? null : as(person.location),
    location_country: company.country,
    skills: [], interests: [],
  };
}

export function companyRecord(world: World, company: WorldCompany, context: RequestContext) {
  const as = caseOf(context);
  return {
    id: `pdlc_${company.index.toString(36)}`,
    name: company.name.toLowerCase(), display_name: company.name,
    size: company.employeeRange, employee_count: company.employeeCount, founded: company.founded,
    industry: company.industry, inferred_revenue: company.revenueRange,
    location: { name: as(`${company.city}, ${company.region}, ${company.country}`), locality: company.city, region: company.region, country: company.country },
    linkedin_url: bare(company.linkedinUrl),
    website: `${context.baseUrl}/sites/${company.domain}/`,
    summary: company.description, headline: null, tags: [company.industry],
  };
}

function findCompany(world: World, context: RequestContext): WorldCompany | undefined {
  const website = param(context, 'website');
  const profile = param(context, 'profile');
  const name = param(context, 'name');
  const domain = website?.replace(/^https?:\/\//, '').replace(/^www\./, '').split('/')[0];
  return (domain && world.companyByDomain(domain)) || (profile && world.companyByProfile(profile)) || (name && world.companyByName(name)) || undefined;
}

export const pdlApi: ProviderApi = {
  prefix: '/pdl',
  endpointFor(method, path) {
    if (method !== 'GET') return null;
    if (path === '/v5/person/enrich') return 'pdl.person';
    if (path === '/v5/company/enrich') return 'pdl.company';
    return null;
  },
  apiKey: (req, url) => header(req, 'x-api-key') ?? url.searchParams.get('api_key'),
  authFailure(status) {
    if (status === 'exhausted') return error(402, 'payment_required', 'You have hit your account maximum for person enrichment (all matches used)');
    return error(401, 'authentication_error', status === 'missing' ? 'No API key was provided' : 'Invalid API key');
  },
  fault(kind, retryAfterSeconds) {
    if (kind === 'rate_limit') return error(429, 'rate_limit_error', 'An error occurred due to requests hitting the API too quickly', { 'retry-after': String(retryAfterSeconds), 'x-ratelimit-remaining': '0' });
    return error(kind === 'unavailable' ? 503 : 500, 'api_error', 'The server encountered an unexpected condition');
  },
  handle(endpoint, context) {
    const { world } = context;
    if (endpoint === 'pdl.person') {
      if (!['email', 'profile', 'name'].some((p) => param(context, p))) return error(400, 'invalid_request_error', 'Request object must contain at least one of: email, profile, name');
      const match = findPerson(world, context);
      if (!match || !isKnownTo(match.person.coverage, 'pdl')) return error(404, 'not_found', 'No records were found matching your request');
      return { status: 200, body: { status: 200, likelihood: match.likelihood, data: personRecord(world, match.person, context) } };
    }
    if (!['website', 'profile', 'name'].some((p) => param(context, p))) return error(400, 'invalid_request_error', 'Request object must contain at least one of: website, profile, name');
    const company = findCompany(world, context);
    if (!company || !isKnownTo(company.coverage, 'pdl')) return error(404, 'not_found', 'No records were found matching your request');
    return { status: 200, body: { status: 200, likelihood: 9, ...companyRecord(world, company, context) } };
  },
};
