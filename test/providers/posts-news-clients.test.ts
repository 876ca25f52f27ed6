import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../integrations/providers/http.ts';
import { createNewsClient } from '../../integrations/providers/news-client.ts';
import { createSocialPostsClient } from '../../integrations/providers/social-posts-client.ts';
import { companyNews, companyPosts, personPosts } from '../../sandbox/provider-world/posts-and-news.ts';
import type { ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { httpDeps, recordingLogger, startWorld } from './provider-fixture.ts';

let world: ProviderWorldHandle;
beforeAll(async () => { world = await startWorld(); });
afterAll(async () => { await world.close(); });
beforeEach(() => { world.setFaults(null); world.resetCalls(); });

const social = () => createSocialPostsClient({ baseUrl: `${world.url}/social`, apiKey: 'k', source: 'social' }, httpDeps(recordingLogger()));
const news = (apiKey = 'k') => createNewsClient({ baseUrl: `${world.url}/news`, apiKey, source: 'news' }, httpDeps(recordingLogger()));

describe('social posts client', () => {
  it('returns a person’s posts newest first in the spec’s date format', async () => {
    const person = world.world.samplePeople({ withPosts: true }, 1)[0];
    const posts = await social().personPosts(person.linkedinUrl);
    const expected = personPosts(world.world, person);
    expect(posts).toHaveLength(expected.length);
    expect(posts?.[0]).toMatchObject({ text: expected[0].text, postUrl: expected[0].url, reshared: expected[0].reshared });
    expect(posts?.[0].posted).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
  });

  it('returns null for an unknown profile and [] for a profile without posts', async () => {
    expect(await social().personPosts('https://www.linkedin.com/in/nobody-at-all')).toBeNull();
    const quiet = world.world.samplePeople({ withPosts: false }, 1)[0];
    expect(await social().personPosts(quiet.linkedinUrl)).toEqual([]);
  });

  it('finds company posts by the page URL; without one it does not call', async () => {
    const company = world.world.companies.find((c) => companyPosts(world.world, c).length > 0)!;
    const byUrl = await social().companyPosts({ socialUrl: company.linkedinUrl, domain: null });
    expect(byUrl?.map((p) => p.postUrl)).toEqual(companyPosts(world.world, company).map((p) => p.url));
    expect(await social().companyPosts({ socialUrl: null, domain: company.domain })).toBeNull();
    expect(world.calls('social.company_posts')).toBe(1);
  });

  it('marks reposts as reshared', async () => {
    const person = world.world.samplePeople({ withPosts: true }, 400).find((p) => personPosts(world.world, p).some((post) => post.reshared))!;
    const posts = await social().personPosts(person.linkedinUrl);
    expect(posts?.map((p) => p.reshared)).toEqual(personPosts(world.world, person).map((p) => p.reshared));
  });
});

describe('news client', () => {
  it('searches the company name and returns articles newest first', async () => {
    const company = world.world.companies.find((c) => companyNews(world.world, c).length >= 4)!;
    const from = new Date('2020-01-01T00:00:00Z');
    const articles = await news().search(company.name, from);
    expect(articles.map((a) => a.title)).toEqual(companyNews(world.world, company).map((a) => a.title));
    expect([...articles].sort((a, b) => b.publishedOn.localeCompare(a.publishedOn))).toEqual(articles);
  });

  it('reads NewsAPI error codes: exhausted key is quota, invalid key is credentials', async () => {
    const quota = await news('exhausted_1').search('Acme', new Date()).catch((e: unknown) => e);
    expect((quota as ProviderError).kind).toBe('quota');
    const bad = await news('bad_1').search('Acme', new Date()).catch((e: unknown) => e);
    expect((bad as ProviderError).kind).toBe('credentials');
    expect(world.calls('news.everything')).toBe(2);
  });
});
