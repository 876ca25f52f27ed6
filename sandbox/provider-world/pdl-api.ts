import type { WorldCompany, WorldPerson } from './generate-world.ts';
import { header, param, type ProviderApi, type Reply, type RequestContext } from './provider-api.ts';
import { isKnownTo, type World } from './world.ts';
import { rngFor } from './prng.ts';

// People Data Labs v5, written from PDL's documentation (not from our client):
//   GET  /v5/person/enrich   {status, likelihood, data: <person record>}
//        https://docs.peopledatalabs.com/docs/reference-person-enrichment-api
//   GET  /v5/company/enrich  the company record, flat, with status and likelihood
//        https://docs.peopledatalabs.com/docs/reference-company-enrichment-api
//   POST /v5/person/search   {query: <Elasticsearch>, size} → {status, data: [<person record>], scroll_token, total}
//        https://docs.peopledatalabs.com/docs/reference-person-search-api
//        https://docs.peopledatalabs.com/docs/output-response-person-search-api
//   errors {status, error: {type, message}}; 404 when nothing matched (all three)
//        https://docs.peopledatalabs.com/docs/errors
//   429: `x-ratelimit-reset` is the UTC time the window reopens
//        https://docs.peopledatalabs.com/docs/usage-limits
// Auth: `X-Api-Key` header (or `api_key` parameter). Record fields:
//        https://docs.peopledatalabs.com/docs/fields

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
    // A bare domain, as in PDL's example record ("website": "google.com").
    website: company.domain,
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

/** The fields of PDL's Elasticsearch subset this stand-in can filter on, read from a person. */
const SEARCHABLE: Record<string, (world: World, person: WorldPerson) => string[]> = {
  job_company_website: (world, p) => [world.companies[p.company].domain],
  job_company_name: (world, p) => [world.companies[p.company].name.toLowerCase()],
  job_company_linkedin_url: (world, p) => [bare(world.companies[p.company].linkedinUrl)],
  job_title_levels: (_world, p) => [LEVELS[p.seniority]],
};

type Clause = { field: string; values: string[] };

/** `{bool: {must: [{term: {f: v}}, {terms: {f: [v…]}}]}}` → clauses; null when it asks for more than this stand-in knows. */
function searchClauses(query: unknown): Clause[] | null {
  const must = (query as { bool?: { must?: unknown } } | null)?.bool?.must;
  const items = Array.isArray(must) ? must : must ? [must] : [];
  if (items.length === 0) return null;
  const clauses: Clause[] = [];
  for (const item of items as Record<string, Record<string, unknown>>[]) {
    const [kind, body] = Object.entries(item ?? {})[0] ?? [];
    const [field, value] = Object.entries(body ?? {})[0] ?? [];
    if (!field || !SEARCHABLE[field]) return null;
    if (kind === 'term' || kind === 'match') clauses.push({ field, values: [String(value).toLowerCase()] });
    else if (kind === 'terms' && Array.isArray(value)) clauses.push({ field, values: value.map((v) => String(v).toLowerCase()) });
    else return null;
  }
  return clauses;
}

function searchPeople(world: World, context: RequestContext): Reply {
  const { body } = context;
  const clauses = searchClauses(body.query);
  if (!clauses) return error(400, 'invalid_request_error', 'query must be an Elasticsearch bool query of term/terms clauses on supported fields');
  const size = Math.min(100, Math.max(1, Number(body.size ?? 1) || 1));
  const domainClause = clauses.find((c) => c.field === 'job_company_website');
  const companies = domainClause ? domainClause.values.map((d) => world.companyByDomain(d)).filter((c) => c !== undefined) : world.companies;
  const matches = companies.flatMap((company) => world.peopleOf(company))
    .filter((p) => isKnownTo(p.coverage, 'pdl'))
    .filter((p) => clauses.every((c) => SEARCHABLE[c.field](world, p).some((v) => c.values.includes(v.toLowerCase()))));
  // Documented: a search without results is a 404, not an empty list.
  if (matches.length === 0) return error(404, 'not_found', 'No records were found matching your search');
  const caseContext = { ...context, url: new URL(`${context.url.origin}${context.url.pathname}?titlecase=${body.titlecase === true}`) };
  return {
    status: 200,
    body: { status: 200, data: matches.slice(0, size).map((p) => personRecord(world, p, caseContext)), scroll_token: matches.length > size ? `${size}$sandbox` : null, total: matches.length },
    headers: { 'x-call-credits-spent': String(Math.min(size, matches.length)), 'x-call-credits-type': 'search' },
  };
}

export const pdlApi: ProviderApi = {
  prefix: '/pdl',
  endpointFor(method, path) {
    if (method === 'GET' && path === '/v5/person/enrich') return 'pdl.person';
    if (method === 'GET' && path === '/v5/company/enrich') return 'pdl.company';
    if (method === 'POST' && path === '/v5/person/search') return 'pdl.person_search';
    return null;
  },
  apiKey: (req, url) => header(req, 'x-api-key') ?? url.searchParams.get('api_key'),
  authFailure(status) {
    if (status === 'exhausted') return error(402, 'payment_required', 'You have hit your account maximum for person enrichment (all matches used)');
    return error(401, 'authentication_error', status === 'missing' ? 'No API key was provided' : 'Invalid API key');
  },
  fault(kind, retryAfterSeconds) {
    if (kind === 'rate_limit') {
      // No Retry-After: PDL's documented headers name the reset time itself, to the second.
      const resetAt = new Date(Math.ceil((Date.now() + retryAfterSeconds * 1000) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return error(429, 'rate_limit_error', 'An error occurred due to requests hitting the API too quickly', {
        'x-ratelimit-reset': resetAt, 'x-ratelimit-remaining': '{"minute": 0}', 'x-ratelimit-limit': '{"minute": 100}',
      });
    }
    return error(kind === 'unavailable' ? 503 : 500, 'api_error', 'The server encountered an unexpected condition');
  },
  handle(endpoint, context) {
    const { world } = context;
    if (endpoint === 'pdl.person_search') return searchPeople(world, context);
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
