import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderWorld, type ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { APOLLO_ERRORS, APOLLO_ORGANIZATION_ENRICH_200, APOLLO_PEOPLE_MATCH_200 } from '../providers/fixtures/apollo.ts';
import { NEWS_ERRORS, NEWS_EVERYTHING_200 } from '../providers/fixtures/newsapi.ts';
import { PDL_COMPANY_ENRICH_200, PDL_ERRORS, PDL_PERSON_ENRICH_200, PDL_PERSON_SEARCH_200 } from '../providers/fixtures/pdl.ts';
import { SOCIAL_COMPANY_POSTS, SOCIAL_PROFILE_POSTS_FOUND, SOCIAL_PROFILE_POSTS_NOT_FOUND, SOCIAL_PROFILES_BATCH } from '../providers/fixtures/social-fetch.ts';

// The stand-in must answer in the providers' documented shapes
// (docs/architecture.md#outside-systems-in-development-and-tests): every key it sends exists in the documented example with
// the same type (null stands for a nullable field), and the collections the
// documentation promises are there.

const NOW = new Date('2026-06-15T12:00:00Z');


function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Paths where the stand-in's reply departs from the documented example. */
function shapeMismatches(actual: unknown, documented: unknown, path = '$'): string[] {
  const [a, d] = [kindOf(actual), kindOf(documented)];
  if (a === 'null' || d === 'null') return [];
  if (a !== d) return [`${path}: ${a}, documented ${d}`];
  if (a === 'array') {
    const [first, example] = [(actual as unknown[])[0], (documented as unknown[])[0]];
    return first === undefined || example === undefined ? [] : shapeMismatches(first, example, `${path}[0]`);
  }
  if (a !== 'object') return [];
  const doc = documented as Record<string, unknown>;
  return Object.entries(actual as Record<string, unknown>).flatMap(([key, value]) =>
    key in doc ? shapeMismatches(value, doc[key], `${path}.${key}`) : [`${path}.${key}: not in the documented reply`],
  );
}

let world: ProviderWorldHandle;
beforeAll(async () => { world = await startProviderWorld({ seed: 77, now: NOW, newsHistoryDays: 30 }); });
afterAll(async () => { await world.close(); });

async function call(path: string, init: RequestInit & { key?: string } = {}) {
  const { key = 'k', ...rest } = init;
  const response = await fetch(`${world.url}${path}`, { ...rest, headers: { 'x-api-key': key, 'content-type': 'application/json', ...rest.headers } });
  return { status: response.status, headers: response.headers, body: await response.json() as Record<string, unknown> };
}

describe('People Data Labs stand-in', () => {
  it('answers Person Enrichment, Company Enrichment and Person Search in the documented shapes', async () => {
    const person = world.world.samplePeople({ knownTo: 'pdl', companyKnownTo: 'both' }, 1)[0];
    const company = world.world.companies[person.company];
    const enrich = await call(`/pdl/v5/person/enrich?email=${encodeURIComponent(person.email)}`);
    expect(enrich.status).toBe(200);
    expect(shapeMismatches(enrich.body, PDL_PERSON_ENRICH_200)).toEqual([]);
    const companyReply = await call(`/pdl/v5/company/enrich?website=${company.domain}`);
    expect(shapeMismatches(companyReply.body, PDL_COMPANY_ENRICH_200)).toEqual([]);
    // The website is the company's own address, never the stand-in's.
    expect(companyReply.body.website).toBe(company.domain);
    const search = await call('/pdl/v5/person/search', {
      method: 'POST',
      body: JSON.stringify({ query: { bool: { must: [{ term: { job_company_website: company.domain } }, { terms: { job_title_levels: ['cxo', 'vp', 'director'] } }] } }, size: 10 }),
    });
    expect(search.status).toBe(200);
    expect(shapeMismatches(search.body, PDL_PERSON_SEARCH_200)).toEqual([]);
    expect(Array.isArray(search.body.data)).toBe(true);
  });

  it('answers misses and key problems with the documented error bodies and statuses', async () => {
    const miss = await call('/pdl/v5/person/enrich?email=nobody%40nowhere.example');
    expect(miss.status).toBe(404);
    expect(shapeMismatches(miss.body, PDL_ERRORS.notFound)).toEqual([]);
    const bad = await call('/pdl/v5/person/enrich?email=a%40b.io', { key: 'bad_1' });
    expect([bad.status, shapeMismatches(bad.body, PDL_ERRORS.invalidKey)]).toEqual([401, []]);
    const exhausted = await call('/pdl/v5/person/enrich?email=a%40b.io', { key: 'exhausted_1' });
    expect([exhausted.status, shapeMismatches(exhausted.body, PDL_ERRORS.paymentRequired)]).toEqual([402, []]);
  });

  it('names the reset time in x-ratelimit-reset on a 429', async () => {
    world.setFaults({ 'pdl.person': { script: ['rate_limit'], retryAfterSeconds: 30 } });
    const limited = await call('/pdl/v5/person/enrich?email=a%40b.io');
    world.setFaults(null);
    expect(limited.status).toBe(429);
    expect(shapeMismatches(limited.body, PDL_ERRORS.rateLimited)).toEqual([]);
    const resetMs = Date.parse(limited.headers.get('x-ratelimit-reset') ?? '') - Date.now();
    expect(resetMs).toBeGreaterThan(25_000);
    expect(resetMs).toBeLessThan(32_000);
  });
});

describe('Apollo stand-in', () => {
  it('answers People Enrichment (query parameters) and Organization Enrichment (GET) in the documented shapes', async () => {
    const person = world.world.samplePeople({ knownTo: 'apollo', companyKnownTo: 'both' }, 1)[0];
    const company = world.world.companies[person.company];
    const match = await call(`/apollo/api/v1/people/match?email=${encodeURIComponent(person.email)}`, { method: 'POST' });
    expect(shapeMismatches(match.body, APOLLO_PEOPLE_MATCH_200)).toEqual([]);
    expect(match.body.person).not.toBeNull();
    const org = await call(`/apollo/api/v1/organizations/enrich?domain=${company.domain}`);
    expect(shapeMismatches(org.body, APOLLO_ORGANIZATION_ENRICH_200)).toEqual([]);
    expect((org.body.organization as { website_url: string }).website_url).toBe(`http://www.${company.domain}`);
  });

  it('reads People Enrichment parameters from the query string only, as documented', async () => {
    const person = world.world.samplePeople({ knownTo: 'apollo' }, 1)[0];
    const inBody = await call('/apollo/api/v1/people/match', { method: 'POST', body: JSON.stringify({ email: person.email }) });
    expect(inBody.body).toEqual({ person: null });
    // Organization Enrichment is documented as GET.
    expect((await call('/apollo/api/v1/organizations/enrich?domain=x.io', { method: 'POST' })).status).toBe(404);
  });

  it('answers key problems with the documented bodies and a 429 with the window counters', async () => {
    const bad = await call('/apollo/api/v1/people/match?email=a%40b.io', { method: 'POST', key: 'bad_1' });
    expect([bad.status, shapeMismatches(bad.body, APOLLO_ERRORS.invalidKey)]).toEqual([401, []]);
    const exhausted = await call('/apollo/api/v1/people/match?email=a%40b.io', { method: 'POST', key: 'exhausted_1' });
    expect([exhausted.status, shapeMismatches(exhausted.body, APOLLO_ERRORS.insufficientCredits)]).toEqual([403, []]);
    world.setFaults({ 'apollo.people_match': { script: ['rate_limit'], retryAfterSeconds: 3600 } });
    const limited = await call('/apollo/api/v1/people/match?email=a%40b.io', { method: 'POST' });
    world.setFaults(null);
    expect(limited.status).toBe(429);
    expect(shapeMismatches(limited.body, APOLLO_ERRORS.rateLimited)).toEqual([]);
    expect([limited.headers.get('x-minute-requests-left'), limited.headers.get('x-hourly-requests-left')]).toEqual(['0', '0']);
  });
});

describe('NewsAPI stand-in', () => {
  it('answers Everything in the documented shape', async () => {
    const company = world.world.companies.find((c) => c.coverage !== 'none')!;
    const reply = await call(`/news/v2/everything?q=${encodeURIComponent(`"${company.name}"`)}&from=2026-06-01&sortBy=publishedAt`);
    expect(reply.status).toBe(200);
    expect(shapeMismatches(reply.body, NEWS_EVERYTHING_200)).toEqual([]);
    expect(Array.isArray(reply.body.articles)).toBe(true);
  });

  it('refuses a `from` beyond the plan’s history with the documented parameterInvalid error', async () => {
    const reply = await call('/news/v2/everything?q=%22Acme%22&from=2025-06-15&sortBy=publishedAt');
    expect(reply.status).toBe(426);
    expect(shapeMismatches(reply.body, NEWS_ERRORS.tooFarInThePast)).toEqual([]);
    expect(reply.body).toMatchObject({ code: 'parameterInvalid', message: expect.stringContaining('too far in the past') });
    const bad = await call('/news/v2/everything?q=%22Acme%22', { key: 'bad_1' });
    expect([bad.status, shapeMismatches(bad.body, NEWS_ERRORS.apiKeyInvalid)]).toEqual([401, []]);
  });
});

describe('Social Fetch stand-in', () => {
  it('lists a profile’s posts, answers batch profile lookups and company posts in the OpenAPI shapes', async () => {
    const person = world.world.samplePeople({ withPosts: true }, 1)[0];
    const found = await call(`/social/v1/linkedin/profiles/posts?url=${encodeURIComponent(person.linkedinUrl)}`);
    expect(shapeMismatches(found.body, SOCIAL_PROFILE_POSTS_FOUND)).toEqual([]);
    const posts = (found.body.data as { posts: { postType: string }[] }).posts;
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((post) => ['post', 'repost'].includes(post.postType))).toBe(true);
    const missing = await call(`/social/v1/linkedin/profiles/posts?url=${encodeURIComponent('https://www.linkedin.com/in/nobody-here')}`);
    expect([missing.status, missing.body.data]).toEqual([200, SOCIAL_PROFILE_POSTS_NOT_FOUND.data]);

    const both = [person.linkedinUrl, 'https://www.linkedin.com/in/nobody-here'];
    const batch = await call(`/social/v1/linkedin/profiles?${both.map((u) => `url=${encodeURIComponent(u)}`).join('&')}`);
    expect(shapeMismatches(batch.body, SOCIAL_PROFILES_BATCH)).toEqual([]);
    const { results, summary } = batch.body.data as { results: Record<string, unknown>[]; summary: unknown };
    expect(results.map((r) => [r.url, r.lookupStatus])).toEqual([[both[0], 'found'], [both[1], 'not_found']]);
    expect(summary).toEqual({ requestedUrls: 2, found: 1, notFound: 1, errored: 0 });
    // The older single-profile shape (`data.lookupStatus`, `data.recentPosts`) is gone.
    expect(batch.body.data).not.toHaveProperty('recentPosts');
    expect(batch.body.data).not.toHaveProperty('lookupStatus');

    const company = world.world.companies[person.company];
    const companyPosts = await call(`/social/v1/linkedin/companies/posts?url=${encodeURIComponent(company.linkedinUrl)}`);
    expect(shapeMismatches(companyPosts.body, SOCIAL_COMPANY_POSTS)).toEqual([]);
  });

  it('honours `limit` (1..200) and refuses anything else with 400 bad_request', async () => {
    const person = world.world.samplePeople({ withPosts: true }, 50).find((p) => p.postCount >= 3)!;
    const one = await call(`/social/v1/linkedin/profiles/posts?url=${encodeURIComponent(person.linkedinUrl)}&limit=1`);
    expect((one.body.data as { posts: unknown[] }).posts).toHaveLength(1);
    expect(one.body.meta).toMatchObject({ creditsCharged: 4, version: 'v1' });
    const bad = await call(`/social/v1/linkedin/profiles/posts?url=${encodeURIComponent(person.linkedinUrl)}&limit=0`);
    expect([bad.status, (bad.body.error as { code: string }).code]).toEqual([400, 'bad_request']);
  });
});

describe('the shape comparison itself', () => {
  it('catches a renamed field, a wrong type and an invented field', () => {
    expect(shapeMismatches({ posts: [{ posted_at: 'x' }] }, { data: { recentPosts: [] } })).toEqual(['$.posts: not in the documented reply']);
    expect(shapeMismatches({ data: [{ full_name: 3 }] }, PDL_PERSON_SEARCH_200)).toEqual(['$.data[0].full_name: number, documented string']);
    expect(shapeMismatches({ status: 200, is_reshare: true }, PDL_PERSON_SEARCH_200)).toEqual(['$.is_reshare: not in the documented reply']);
  });
});
