import type { WorldCompany, WorldPerson } from './generate-world.ts';
import { rngFor } from './prng.ts';
import { photoUrl } from './photos.ts';
import { header, str, type ProviderApi, type RequestContext } from './provider-api.ts';
import { isKnownTo, type World } from './world.ts';

// Apollo.io REST API v1, written from Apollo's documentation (not from our client):
//   POST /api/v1/people/match?email=…&first_name=…   → {person: {…} | null}
//        https://docs.apollo.io/reference/people-enrichment (parameters in the query string)
//   GET  /api/v1/organizations/enrich?domain=…        → {organization: {…}}
//        https://docs.apollo.io/reference/organization-enrichment
//   429 with the window counters x-minute/hourly/daily-requests-left
//        https://docs.apollo.io/reference/rate-limits
// Auth: `x-api-key` header. Failures carry `{error}`.

// Apollo documents these endpoints' parameters as query parameters: a JSON body is not read.
const query = (context: RequestContext, name: string) => str(context.url.searchParams.get(name));

const title = (text: string) => text.replace(/(^|[\s-])\S/g, (m) => m.toUpperCase());

function organization(world: World, company: WorldCompany, context: RequestContext) {
  return {
    id: `org_${company.index.toString(16).padStart(8, '0')}`,
    name: company.name,
    // As in Apollo's example organization: "website_url": "http://www.apollo.io".
    website_url: `http://www.${company.domain}`,
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
    photo_url: rng.chance(0.25) ? null : photoUrl(context.baseUrl, p),
    city: rng.chance(0.2) ? null : city, state, country,
    seniority: p.seniority,
    employment_history: [{ current: true, title: p.title, organization_name: company.name, start_date: rng.chance(0.2) ? null : p.roleStart, end_date: null }],
    organization_id: `org_${company.index.toString(16).padStart(8, '0')}`,
    organization: isKnownTo(company.coverage, 'apollo') ? organization(world, company, context) : { name: company.name },
  };
}

function matchPerson(world: World, context: RequestContext): WorldPerson | undefined {
  const email = query(context, 'email');
  const linkedin = query(context, 'linkedin_url');
  const name = query(context, 'name') ?? [query(context, 'first_name'), query(context, 'last_name')].filter(Boolean).join(' ');
  const company = query(context, 'domain') ?? query(context, 'organization_name');
  return (email && world.personByEmail(email)) || (linkedin && world.personByProfile(linkedin))
    || (name && company ? world.personByName(name, company) : undefined) || undefined;
}

export const apolloApi: ProviderApi = {
  prefix: '/apollo',
  endpointFor(method, path) {
    if (path === '/api/v1/people/match' && method === 'POST') return 'apollo.people_match';
    if (path === '/api/v1/organizations/enrich' && method === 'GET') return 'apollo.organization_enrich';
    return null;
  },
  apiKey: (req) => header(req, 'x-api-key'),
  authFailure(status) {
    if (status === 'exhausted') return { status: 403, body: { error: 'You have insufficient credits to perform this action. Please upgrade your plan.', error_code: 'INSUFFICIENT_CREDITS' } };
    return { status: 401, body: { error: status === 'missing' ? 'api/v1/people/match requires an API key' : 'Invalid access credentials.', error_code: 'INVALID_API_KEY' } };
  },
  fault(kind, retryAfterSeconds) {
    if (kind === 'rate_limit') {
      // Apollo's fixed windows: the emptied one tells the client how long to wait.
      return {
        status: 429,
        body: { error: 'The maximum number of api calls allowed for this endpoint has been exceeded. Please try again later.' },
        headers: {
          'x-rate-limit-minute': '50', 'x-rate-limit-hourly': '200', 'x-rate-limit-daily': '600',
          'x-minute-requests-left': '0', 'x-hourly-requests-left': retryAfterSeconds > 60 ? '0' : '5', 'x-daily-requests-left': retryAfterSeconds > 3600 ? '0' : '5',
        },
      };
    }
    return { status: kind === 'unavailable' ? 503 : 500, body: { error: 'Something went wrong. Please try again later.' } };
  },
  handle(endpoint, context) {
    const { world } = context;
    if (endpoint === 'apollo.people_match') {
      const found = matchPerson(world, context);
      return { status: 200, body: { person: found && isKnownTo(found.coverage, 'apollo') ? person(world, found, context) : null } };
    }
    if (endpoint === 'apollo.organization_enrich') {
      const domain = query(context, 'domain')?.replace(/^https?:\/\//, '').replace(/^www\./, '').split('/')[0];
      if (!domain) return { status: 422, body: { error: 'domain is required' } };
      const company = world.companyByDomain(domain);
      return { status: 200, body: company && isKnownTo(company.coverage, 'apollo') ? { organization: organization(world, company, context) } : {} };
    }
    return { status: 404, body: { error: 'not found' } };
  },
};
