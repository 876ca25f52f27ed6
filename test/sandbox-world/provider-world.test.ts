import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { companyNews, personPosts, PROMPT_INJECTIONS } from '../../sandbox/provider-world/posts-and-news.ts';
import { startProviderWorld, type ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';

const NOW = new Date('2026-06-15T12:00:00Z');

describe('synthetic world', () => {
  const world = createWorld({ seed: 99, now: NOW });

  it('is the same for the same seed and different for another', () => {
    const again = createWorld({ seed: 99, now: NOW });
    expect(again.people.slice(0, 50)).toEqual(world.people.slice(0, 50));
    expect(again.companies.at(-1)).toEqual(world.companies.at(-1));
    expect(personPosts(again, again.people[7])).toEqual(personPosts(world, world.people[7]));
    expect(createWorld({ seed: 100, now: NOW }).people[0].email).not.toBe(world.people[0].email);
  });

  it('has at least 1,000 companies and 10,000 people with unique e-mails and domains', () => {
    expect(world.companies.length).toBeGreaterThanOrEqual(1000);
    expect(world.people.length).toBeGreaterThanOrEqual(10_000);
    expect(new Set(world.people.map((p) => p.email)).size).toBe(world.people.length);
    expect(new Set(world.companies.map((c) => c.domain)).size).toBe(world.companies.length);
  });

  it('spreads people over providers so that the waterfall matters', () => {
    const share = (test: (c: string) => boolean) => world.people.filter((p) => test(p.coverage)).length / world.people.length;
    expect(share((c) => c === 'both' || c === 'pdl')).toBeCloseTo(0.7, 1);
    expect(share((c) => c === 'both' || c === 'apollo')).toBeCloseTo(0.7, 1);
    expect(share((c) => c !== 'none')).toBeCloseTo(0.9, 1);
    expect(world.sampleCompanies({ knownTo: 'pdl' }, 1)).toHaveLength(1);
    expect(world.sampleCompanies({ knownTo: 'apollo' }, 1)).toHaveLength(1);
  });

  it('offers deterministic samples for tests', () => {
    const sample = world.samplePeople({ knownTo: 'both', nonEnglishTitle: true, withPosts: true }, 5);
    expect(sample).toHaveLength(5);
    expect(sample.every((p) => p.coverage === 'both' && !p.isEnglishTitle && p.postCount > 0)).toBe(true);
    expect(world.samplePeople({ knownTo: 'both', nonEnglishTitle: true, withPosts: true }, 5)).toEqual(sample);
    expect(world.personByEmail(world.unmatchedEmail(world.companies[0]))).toBeUndefined();
    const injected = world.samplePeople({ withPromptInjection: true }, 1)[0];
    expect(personPosts(world, injected).some((p) => PROMPT_INJECTIONS.some((i) => p.text.includes(i)))).toBe(true);
  });

  it('has leaders at every company, posts with injections and news older than a year', () => {
    expect(world.companies.every((c) => world.peopleOf(c).some((p) => p.seniority === 'c_suite'))).toBe(true);
    const posts = world.people.slice(0, 2000).flatMap((p) => personPosts(world, p));
    expect(posts.some((p) => PROMPT_INJECTIONS.some((i) => p.text.includes(i)))).toBe(true);
    expect(posts.some((p) => p.reshared)).toBe(true);
    const yearAgo = NOW.getTime() - 365 * 86_400_000;
    const news = world.companies.slice(0, 100).flatMap((c) => companyNews(world, c));
    expect(news.some((a) => a.publishedAt.getTime() < yearAgo)).toBe(true);
    expect(news.some((a) => a.publishedAt.getTime() >= yearAgo)).toBe(true);
  });
});

describe('provider world admin API', () => {
  let handle: ProviderWorldHandle;
  beforeAll(async () => { handle = await startProviderWorld({ seed: 5, now: NOW }); });
  afterAll(async () => { await handle.close(); });

  it('counts calls, takes fault config over HTTP and resets', async () => {
    const email = handle.world.samplePeople({ knownTo: 'pdl' }, 1)[0].email;
    const enrich = () => fetch(`${handle.url}/pdl/v5/person/enrich?email=${encodeURIComponent(email)}`, { headers: { 'X-Api-Key': 'k' } });
    expect((await enrich()).status).toBe(200);
    await fetch(`${handle.url}/__admin/config`, { method: 'POST', body: JSON.stringify({ faults: { 'pdl.person': { script: ['rate_limit'], retryAfterSeconds: 7 } } }) });
    const limited = await enrich();
    expect(limited.status).toBe(429);
    // PDL names the reset time (https://docs.peopledatalabs.com/docs/usage-limits), it sends no Retry-After.
    const resetInMs = Date.parse(limited.headers.get('x-ratelimit-reset') ?? '') - Date.now();
    expect(resetInMs).toBeGreaterThan(5_000);
    expect(resetInMs).toBeLessThanOrEqual(8_000);
    const calls = await (await fetch(`${handle.url}/__admin/calls`)).json() as { calls: Record<string, number> };
    expect(calls.calls['pdl.person']).toBe(2);
    expect(handle.calls('pdl.person')).toBe(2);
    await fetch(`${handle.url}/__admin/reset`, { method: 'POST' });
    expect(handle.calls()).toBe(0);
    const sample = await (await fetch(`${handle.url}/__admin/sample-people?knownTo=none&limit=2`)).json() as { people: { email: string }[] };
    expect(sample.people).toHaveLength(2);
  });

  it('rejects a malformed fault config instead of ignoring it', async () => {
    const reply = await fetch(`${handle.url}/__admin/config`, { method: 'POST', body: JSON.stringify({ faults: { 'pdl.persn': { timeoutRate: 1 } } }) });
    expect(reply.status).toBe(400);
    const state = await (await fetch(`${handle.url}/__admin/config`)).json() as { faults: object };
    expect(state.faults).toEqual({});
  });

  it('applies configured latency', async () => {
    handle.setLatency({ 'news.everything': { meanMs: 150 } });
    const started = Date.now();
    await fetch(`${handle.url}/news/v2/everything?q=x&apiKey=k`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    handle.setLatency(null);
  });
});
