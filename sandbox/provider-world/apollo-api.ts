import type { WorldCompany, WorldPerson } from './generate-world.ts';
import { rngFor } from './prng.ts';
import { header, param, type ProviderApi, type Reply, type RequestContext } from './provider-api.ts';
import { isKnownTo, type World } from './world.ts';

// Apollo.io v1 shapes: `x-api-key` header, JSON bodies (query parameters are
// accepted too), `{person}` / `{organization}` / `{people, pagination}` replies,
// `{error}` bodies for failures.

const title = (text: string) => text.replace(/(^|[\s-])\S/g, (m) => m.toUpperCase());

function organization(world: World, company: WorldCompany, context: RequestContext) {
  return {
    id: `org_${company.index.toString(16).padStart(8, '0')}`,
    name: company.name,
    website_url: `${context.baseUrl}/sites/${company.domain}/`,
    linkedin_url: company.linkedinUrl.replace('https://www.', 'http://www.'),
    primary_domain: company.domain,
    industry: company.industry,
    estimated_num_employees: company.employeeCount,
    annual_revenue_printed: company.revenueRange.replace(/\$/g, '').split('-').pop(),
    founded_year: company.founded,
    short_description: company.description,
    city: title(company.city), state: title(company.region), country: title(company.country),
    raw_address: `${title(company.city)}, ${title(company.country)}`,
    keywords: [company.industry],
  };
}

function person(world: World, p: WorldPerson, context: RequestContext) {
  const company = world.companies[p.company];
  const rng = rngFor(world.seed, `apollo-gaps:${p.index}`);
  const [city, state, country] = p.location.split(', ').map(title);
  return {
    id: `pers_${p.index.toString(16).padStart(8, '0')}`,
    first_name: p.firstName, last_name: p.lastName, name: p.fullName,
    linkedin_url: p.linkedinUrl.replace('https://www.', 'http://www.'),
    title: p.title, headline: `${p.title} at ${company.name}`,
    email: p.email, email_status: 'verified',
    photo_url: rng.chance(0.25) ? null : p.photoUrl,
    city: rng.chance(0.2) ? null : city, state, country,
    seniority: p.seniority,
    employment_history: [{ current: true, title: p.title, organization_name: company.name, start_date: rng.chance(0.2) ? null : p.roleStart, end_date: null }],
    organization_id: `org_${company.index.toString(16).padStart(8, '0')}`,
    organization: isKnownTo(company.coverage, 'apollo') ? organization(world, company, context) : { name: company.name },
  };
}

function matchPerson(world: World, context: RequestContext): WorldPerson | undefined {
  const email = param(context, 'email');
  const linkedin = param(context, 'linkedin_url');
  const name = param(context, 'name') ?? [param(context, 'first_name'), param(context, 'last_name')].filter(Boolean).join(' ');
  const company = param(context, 'domain') ?? param(context, 'organization_name');
  return (email && world.personByEmail(email)) || (linkedin && world.personByProfile(linkedin))
    || (name && company ? world.personByName(name, company) : undefined) || undefined;
}

function list(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? value.split(/[\n,]/).map((v) => v.trim()).filter(Boolean) : [];
}

function searchPeople(world: World, context: RequestContext): Reply {
  const body = context.body;
  const domains = [...list(body.q_organization_domains_list), ...list(body.q_organization_domains), ...context.url.searchParams.getAll('q_organization_domains_list[]')];
  const seniorities = new Set([...list(body.person_seniorities), ...context.url.searchParams.getAll('person_seniorities[]')]);
  const page = Math.max(1, Number(body.page ?? 1) || 1);
  const perPage = Math.min(100, Math.max(1, Number(body.per_page ?? 25) || 25));
  const people = domains.flatMap((domain) => {
    const company = world.companyByDomain(domain);
    return company ? world.peopleOf(company) : [];
  }).filter((p) => isKnownTo(p.coverage, 'apollo') && (seniorities.size === 0 || seniorities.has(p.seniority)));
  const slice = people.slice((page - 1) * perPage, page * perPage);
  return {
    status: 200,
    body: {
      breadcrumbs: [], partial_results_only: false, contacts: [],
      people: slice.map((p) => person(world, p, context)),
      pagination: { page, per_page: perPage, total_entries: people.length, total_pages: Math.ceil(people.length / perPage) },
    },
  };
}

export const apolloApi: ProviderApi = {
  prefix: '/apollo',
  endpointFor(method, path) {
    if (path === '/api/v1/people/match' && method === 'POST') return 'apollo.people_match';
    if (path === '/api/v1/organizations/enrich' && (method === 'GET' || method === 'POST')) return 'apollo.organization_enrich';
    if ((path === '/api/v1/mixed_people/search' || path === '/api/v1/mixed_people/api_search') && method === 'POST') return 'apollo.people_search';
    return null;
  },
  apiKey: (req, url) => header(req, 'x-api-key') ?? url.searchParams.get('api_key'),
  authFailure(status) {
    if (status === 'exhausted') return { status: 403, body: { error: 'You have insufficient credits to perform this action. Please upgrade your plan.', error_code: 'INSUFFICIENT_CREDITS' } };
    return { status: 401, body: { error: status === 'missing' ? 'api/v1/people/match requires an API key' : 'Invalid access credentials.', error_code: 'INVALID_API_KEY' } };
  },
  fault(kind, retryAfterSeconds) {
    if (kind === 'rate_limit') return { status: 429, body: { error: 'The maximum number of api calls allowed for this endpoint has been exceeded. Please try again later.' }, headers: { 'retry-after': String(retryAfterSeconds) } };
    return { status: kind === 'unavailable' ? 503 : 500, body: { error: 'Something went wrong. Please try again later.' } };
  },
  handle(endpoint, context) {
    const { world } = context;
    if (endpoint === 'apollo.people_match') {
      const found = matchPerson(world, context);
      return { status: 200, body: { person: found && isKnownTo(found.coverage, 'apollo') ? person(world, found, context) : null } };
    }
    if (endpoint === 'apollo.organization_enrich') {
      const domain = param(context, 'domain')?.replace(/^https?:\/\//, '').replace(/^www\./, '').split('/')[0];
      if (!domain) return { status: 422, body: { error: 'domain is required' } };
      const company = world.companyByDomain(domain);
      return { status: 200, body: company && isKnownTo(company.coverage, 'apollo') ? { organization: organization(world, company, context) } : {} };
    }
    return searchPeople(world, context);
  },
};
