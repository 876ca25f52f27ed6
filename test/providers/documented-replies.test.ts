import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apolloRateLimitReset, createApolloClient } from '../../integrations/providers/apollo-client.ts';
import { ProviderError } from '../../integrations/providers/http.ts';
import { createNewsClient } from '../../integrations/providers/news-client.ts';
import { createPdlClient, pdlRateLimitReset } from '../../integrations/providers/pdl-client.ts';
import { createSocialPostsClient } from '../../integrations/providers/social-posts-client.ts';
import { APOLLO_ERRORS, APOLLO_ORGANIZATION_ENRICH_200, APOLLO_PEOPLE_MATCH_200, APOLLO_PEOPLE_MATCH_NONE, apolloRateLimitHeaders } from './fixtures/apollo.ts';
import { NEWS_ERRORS, NEWS_EVERYTHING_200 } from './fixtures/newsapi.ts';
import { PDL_COMPANY_ENRICH_200, PDL_ERRORS, PDL_PERSON_ENRICH_200, PDL_PERSON_SEARCH_200, pdlRateLimitHeaders } from './fixtures/pdl.ts';
import { SOCIAL_COMPANY_POSTS, SOCIAL_PROFILE_POSTS_FOUND, SOCIAL_PROFILE_POSTS_NOT_FOUND } from './fixtures/social-fetch.ts';
import { startFixtureServer } from './fixture-server.ts';
import { FAST_RETRY, httpDeps, recordingLogger } from './provider-fixture.ts';

// Each real client against its provider's documented example replies, served
// over HTTP: what it sends, every field it maps, every documented error.

let server: Awaited<ReturnType<typeof startFixtureServer>>;
beforeAll(async () => { server = await startFixtureServer(); });
afterAll(async () => { await server.close(); });

const endpoint = (apiKey = 'key_123') => ({ baseUrl: server.url, apiKey, source: 'test' });
const deps = (logger = recordingLogger(), retry = FAST_RETRY) => httpDeps(logger, { retry });
const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
};

describe('People Data Labs client, documented replies', () => {
  const pdl = () => createPdlClient(endpoint(), deps());

  it('sends Person Enrichment as GET with query parameters and maps every field', async () => {
    server.reply({ body: PDL_PERSON_ENRICH_200 });
    const person = await pdl().findPerson({ email: 'sean@peopledatalabs.com', prospectName: 'Sean Thorne' });
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/v5/person/enrich');
    expect(request.query.get('email')).toBe('sean@peopledatalabs.com');
    expect(request.query.get('name')).toBe('Sean Thorne');
    expect(request.headers['x-api-key']).toBe('key_123');
    expect(person).toEqual({
      fullName: 'sean thorne',
      title: 'Co-Founder and Chief Executive Officer',
      companyName: 'people data labs',
      companyDomain: 'peopledatalabs.com',
      companySocialUrl: 'https://www.linkedin.com/company/peopledatalabs',
      email: 'sean@peopledatalabs.com',
      socialUrl: 'https://www.linkedin.com/in/seanthorne',
      photoUrl: null,
      lastRoleStart: '2015-03-01',
      location: 'San Francisco, California, United States',
    });
  });

  it('maps the Company Enrichment record, keeping the company’s own website', async () => {
    server.reply({ body: PDL_COMPANY_ENRICH_200 });
    const company = await pdl().findCompany({ domain: 'google.com' });
    expect(server.requests[0].query.get('website')).toBe('google.com');
    expect(company).toEqual({
      name: 'Google', description: PDL_COMPANY_ENRICH_200.summary, socialUrl: 'https://www.linkedin.com/company/google',
      website: 'https://google.com', domain: 'google.com', industry: 'internet', hq: 'Mountain View, California, United States',
      revenue: '$100B+', employees: '10001+', clientsCount: null,
    });
  });

  it('finds decision makers with a Person Search on the company and its senior levels', async () => {
    server.reply({ body: PDL_PERSON_SEARCH_200 });
    const found = await pdl().findDecisionMakers({ name: 'People Data Labs', domain: 'peopledatalabs.com' });
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v5/person/search');
    const body = JSON.parse(request.body);
    expect(body.query.bool.must).toEqual([
      { term: { job_company_website: 'peopledatalabs.com' } },
      { terms: { job_title_levels: ['cxo', 'owner', 'partner', 'vp', 'director'] } },
    ]);
    expect(body.size).toBe(10);
    expect(found).toEqual([{
      fullName: 'sean thorne', positionTitle: 'Co-Founder and Chief Executive Officer', socialUrl: 'https://www.linkedin.com/in/seanthorne',
      pictureUrl: null, locationText: 'San Francisco, California, United States', companyName: 'people data labs',
    }]);
  });

  it('reads the documented 404 as "no match" on all three endpoints', async () => {
    server.reply({ status: 404, body: PDL_ERRORS.notFound });
    expect(await pdl().findPerson({ email: 'x@acme.io' })).toBeNull();
    expect(await pdl().findCompany({ domain: 'acme.io' })).toBeNull();
    expect(await pdl().findDecisionMakers({ name: 'Acme', domain: 'acme.io' })).toEqual([]);
  });

  it('classifies 401 as credentials and 402 as quota, without retrying', async () => {
    server.reply({ status: 401, body: PDL_ERRORS.invalidKey });
    expect((await failureOf(pdl().findPerson({ email: 'x@acme.io' }))).kind).toBe('credentials');
    server.reply({ status: 402, body: PDL_ERRORS.paymentRequired });
    expect((await failureOf(pdl().findPerson({ email: 'x@acme.io' }))).kind).toBe('quota');
    expect(server.requests).toHaveLength(1);
  });

  it('waits for x-ratelimit-reset when it falls inside the budget', async () => {
    const resetAt = new Date(Math.ceil((Date.now() + 1000) / 1000) * 1000);
    server.reply({ status: 429, body: PDL_ERRORS.rateLimited, headers: pdlRateLimitHeaders(resetAt) }, { body: PDL_PERSON_ENRICH_200 });
    const started = Date.now();
    expect((await pdl().findPerson({ email: 'sean@peopledatalabs.com' }))?.fullName).toBe('sean thorne');
    expect(Date.now()).toBeGreaterThanOrEqual(resetAt.getTime() - 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(server.requests).toHaveLength(2);
  });

  it('gives up at once when the reset is beyond the budget, with one warn naming provider and reset time', async () => {
    const logger = recordingLogger();
    const resetAt = new Date(Date.now() + 3_600_000);
    server.reply({ status: 429, body: PDL_ERRORS.rateLimited, headers: pdlRateLimitHeaders(resetAt) });
    const error = await failureOf(createPdlClient(endpoint(), deps(logger)).findPerson({ email: 'x@acme.io' }));
    expect(error.kind).toBe('rate_limited');
    expect(server.requests).toHaveLength(1);
    const warns = logger.entries.filter((e) => e.level === 'warn');
    expect(warns).toHaveLength(1);
    expect(warns[0].details).toMatchObject({ provider: 'pdl', api: 'pdl.person' });
    expect(Date.parse((warns[0].details as { resetsAt: string }).resetsAt)).toBeGreaterThanOrEqual(resetAt.getTime() - 1000);
  });

  it('reads x-ratelimit-reset as a UTC timestamp or as epoch seconds', () => {
    const now = Date.parse('2022-02-23T20:19:50Z');
    expect(pdlRateLimitReset(new Headers({ 'x-ratelimit-reset': '2022-02-23T20:19:55Z' }), now)?.waitMs).toBe(5000);
    expect(pdlRateLimitReset(new Headers({ 'x-ratelimit-reset': String(now / 1000 + 7) }), now)?.waitMs).toBe(7000);
    expect(pdlRateLimitReset(new Headers(), now)).toBeNull();
  });

  it('treats a Person Search reply without `data` as a protocol error, not as no decision makers', async () => {
    server.reply({ body: { status: 200, total: 3 } });
    const error = await failureOf(pdl().findDecisionMakers({ name: 'Acme', domain: 'acme.io' }));
    expect(error.kind).toBe('protocol');
  });
});

describe('Apollo client, documented replies', () => {
  const apollo = (logger = recordingLogger()) => createApolloClient(endpoint(), deps(logger));

  it('sends People Enrichment as POST with query parameters and maps every field', async () => {
    server.reply({ body: APOLLO_PEOPLE_MATCH_200 });
    const person = await apollo().findPerson({ email: 'tim@apollo.io', prospectName: 'Tim Zheng' });
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/api/v1/people/match');
    expect(Object.fromEntries(request.query)).toMatchObject({ email: 'tim@apollo.io', first_name: 'Tim', last_name: 'Zheng' });
    expect(request.body).toBe('');
    expect(request.headers['x-api-key']).toBe('key_123');
    expect(person).toEqual({
      fullName: 'Tim Zheng', title: 'Founder & CEO', companyName: 'Apollo.io', companyDomain: 'apollo.io',
      companySocialUrl: 'https://www.linkedin.com/company/apolloio', email: 'tim@apollo.io',
      socialUrl: 'https://www.linkedin.com/in/tim-zheng-677ba010', photoUrl: APOLLO_PEOPLE_MATCH_200.person.photo_url,
      lastRoleStart: '2015-01-01', location: 'San Francisco, California, United States',
    });
  });

  it('reads `person: null` as no match', async () => {
    server.reply({ body: APOLLO_PEOPLE_MATCH_NONE });
    expect(await apollo().findPerson({ email: 'nobody@apollo.io' })).toBeNull();
  });

  it('sends Organization Enrichment as GET with `domain` in the query and maps every field', async () => {
    server.reply({ body: APOLLO_ORGANIZATION_ENRICH_200 });
    const company = await apollo().findCompany({ domain: 'apollo.io' });
    const [request] = server.requests;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/api/v1/organizations/enrich');
    expect(request.query.get('domain')).toBe('apollo.io');
    expect(company).toEqual({
      name: 'Apollo.io', description: APOLLO_ORGANIZATION_ENRICH_200.organization.short_description,
      socialUrl: 'https://www.linkedin.com/company/apolloio', website: 'http://www.apollo.io', domain: 'apollo.io',
      industry: 'information technology & services', hq: '440 N Barranca Ave, Covina, California 91723, US',
      revenue: '100M', employees: '1600', clientsCount: null,
    });
  });

  it('classifies an invalid key as credentials and insufficient credits as quota', async () => {
    server.reply({ status: 401, body: APOLLO_ERRORS.invalidKey });
    expect((await failureOf(apollo().findPerson({ email: 'a@b.io' }))).kind).toBe('credentials');
    server.reply({ status: 403, body: APOLLO_ERRORS.insufficientCredits });
    expect((await failureOf(apollo().findPerson({ email: 'a@b.io' }))).kind).toBe('quota');
  });

  it('treats an emptied hourly window as unavailable this run: no retry, one warn', async () => {
    const logger = recordingLogger();
    server.reply({ status: 429, body: APOLLO_ERRORS.rateLimited, headers: apolloRateLimitHeaders({ minute: 0, hourly: 0, daily: 140 }) });
    expect((await failureOf(apollo(logger).findPerson({ email: 'a@b.io' }))).kind).toBe('rate_limited');
    expect(server.requests).toHaveLength(1);
    expect(logger.entries.filter((e) => e.level === 'warn').map((e) => e.details)).toEqual([expect.objectContaining({ provider: 'apollo', window: 'hour' })]);
  });

  it('reads Apollo’s window counters into a wait', () => {
    const now = Date.parse('2026-06-15T12:00:45Z');
    expect(apolloRateLimitReset(new Headers(apolloRateLimitHeaders({ minute: 0, hourly: 10, daily: 100 })), now)).toEqual({ waitMs: 15_000, window: 'minute' });
    expect(apolloRateLimitReset(new Headers(apolloRateLimitHeaders({ minute: 0, hourly: 0, daily: 100 })), now)?.window).toBe('hour');
    expect(apolloRateLimitReset(new Headers(apolloRateLimitHeaders({ minute: 3, hourly: 5, daily: 0 })), now)?.window).toBe('day');
  });
});

describe('NewsAPI client, documented replies', () => {
  const news = () => createNewsClient(endpoint(), deps());

  it('searches Everything for the exact name from the given date and maps every article', async () => {
    server.reply({ body: NEWS_EVERYTHING_200 });
    const articles = await news().search('Acme "Labs"', new Date('2026-05-16T12:00:00Z'));
    const [request] = server.requests;
    expect(request.path).toBe('/v2/everything');
    expect(Object.fromEntries(request.query)).toMatchObject({ q: '"Acme Labs"', from: '2026-05-16T12:00:00', sortBy: 'publishedAt' });
    expect(request.headers['x-api-key']).toBe('key_123');
    expect(articles).toEqual([
      { title: 'The Bitcoin Rich List Is Getting Shorter', text: NEWS_EVERYTHING_200.articles[0].description, url: 'https://www.wired.com/story/bitcoin-rich-list/', publishedOn: '2026-06-10' },
      { title: 'Crypto Exchange Opens European Office', text: NEWS_EVERYTHING_200.articles[1].content, url: 'https://gizmodo.com/crypto-exchange-europe', publishedOn: '2026-05-02' },
    ]);
  });

  it('classifies each documented error code', async () => {
    const cases: [number, object, string][] = [
      [401, NEWS_ERRORS.apiKeyInvalid, 'credentials'], [429, NEWS_ERRORS.apiKeyExhausted, 'quota'],
      [426, NEWS_ERRORS.tooFarInThePast, 'rejected'],
    ];
    for (const [status, body, kind] of cases) {
      server.reply({ status, body });
      expect((await failureOf(news().search('Acme', new Date()))).kind, JSON.stringify(body)).toBe(kind);
    }
    server.reply({ status: 429, body: NEWS_ERRORS.rateLimited, headers: { 'retry-after': '3600' } });
    expect((await failureOf(news().search('Acme', new Date()))).kind).toBe('rate_limited');
  });

  it('treats an ok reply without `articles` as a protocol error, not as no news', async () => {
    server.reply({ body: { status: 'ok', totalResults: 0 } });
    expect((await failureOf(news().search('Acme', new Date()))).kind).toBe('protocol');
  });
});

describe('Social Fetch client, documented replies', () => {
  const social = () => createSocialPostsClient(endpoint(), deps());

  it('lists a profile’s posts from /v1/linkedin/profiles/posts, newest first, reposts marked', async () => {
    server.reply({ body: SOCIAL_PROFILE_POSTS_FOUND });
    const posts = await social().personPosts('https://www.linkedin.com/in/jane-doe-123');
    const [request] = server.requests;
    expect(request.path).toBe('/v1/linkedin/profiles/posts');
    expect(request.query.get('url')).toBe('https://www.linkedin.com/in/jane-doe-123');
    expect(request.query.get('limit')).toBe('6');
    expect(request.headers['x-api-key']).toBe('key_123');
    const [first, second] = SOCIAL_PROFILE_POSTS_FOUND.data.posts;
    expect(posts).toEqual([
      { text: second.text, posted: '2026-06-02 22:49:27', postUrl: second.url, reshared: true },
      { text: first.text, posted: '2026-05-29 20:14:29', postUrl: first.url, reshared: false },
    ]);
  });

  it('reads an article without text by its headline, and skips a post without a date', async () => {
    const [post] = SOCIAL_PROFILE_POSTS_FOUND.data.posts;
    const article = { ...post, id: '1', url: 'https://www.linkedin.com/pulse/a', text: null, postType: 'article', headline: 'Why data centers' };
    const undated = { ...post, id: '2', url: 'https://www.linkedin.com/posts/b', publishedAt: null };
    server.reply({ body: { ...SOCIAL_PROFILE_POSTS_FOUND, data: { ...SOCIAL_PROFILE_POSTS_FOUND.data, posts: [article, undated] } } });
    expect(await social().personPosts('https://www.linkedin.com/in/bradsmi')).toEqual([
      { text: 'Why data centers', posted: '2026-05-29 20:14:29', postUrl: 'https://www.linkedin.com/pulse/a', reshared: false },
    ]);
  });

  it('reads `lookupStatus: not_found` as an unknown profile', async () => {
    server.reply({ body: SOCIAL_PROFILE_POSTS_NOT_FOUND });
    expect(await social().personPosts('https://www.linkedin.com/in/nobody')).toBeNull();
  });

  it('reads a company page’s posts by its URL', async () => {
    server.reply({ body: SOCIAL_COMPANY_POSTS });
    const posts = await social().companyPosts({ socialUrl: 'https://www.linkedin.com/company/acme', domain: 'acme.io' });
    expect(server.requests[0].path).toBe('/v1/linkedin/companies/posts');
    expect(server.requests[0].query.get('url')).toBe('https://www.linkedin.com/company/acme');
    expect(posts).toEqual([{ text: SOCIAL_COMPANY_POSTS.data.posts[0].title, posted: '2026-06-05 10:00:00', postUrl: SOCIAL_COMPANY_POSTS.data.posts[0].url, reshared: false }]);
  });

  it('treats a found profile without `posts` as a protocol error, not as no posts', async () => {
    server.reply({ body: { data: { lookupStatus: 'found', summary: { returned: 0 } }, meta: SOCIAL_PROFILE_POSTS_FOUND.meta } });
    expect((await failureOf(social().personPosts('https://www.linkedin.com/in/jane-doe-123'))).kind).toBe('protocol');
  });

  it('classifies 401 as credentials and 402 as quota', async () => {
    server.reply({ status: 401, body: { error: { code: 'unauthorized', message: 'Invalid API key' } } });
    expect((await failureOf(social().personPosts('https://www.linkedin.com/in/x'))).kind).toBe('credentials');
    server.reply({ status: 402, body: { error: { code: 'insufficient_credits', message: 'No credits left' } } });
    expect((await failureOf(social().personPosts('https://www.linkedin.com/in/x'))).kind).toBe('quota');
  });
});
