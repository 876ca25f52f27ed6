import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerCalls, researchCompleted, rows } from '../helpers/research-runs.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/api.md#freshness: refresh windows with the injectable clock (shared by the API and
// the activities): prospect 30 days, company 90, decision makers 60. Within the
// window the cache answers; after it the stored row is overwritten in place.
// The clock only moves forward, so every test starts from its own new customer.

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const COMPANY_PROFILE_ENDPOINTS = ['pdl.company', 'apollo.organization_enrich'];

function companyProfileCalls(calls: Record<string, number>): number {
  return COMPANY_PROFILE_ENDPOINTS.reduce((sum, endpoint) => sum + (calls[endpoint] ?? 0), 0);
}

describe('prospect data: 30 days', () => {
  it('is served from the cache on day 29 with its age, and re-fetched into the same row on day 30', async () => {
    const { key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', withPosts: true, companyKnownTo: 'both' });
    const first = await researchCompleted(stack, key, { email: person.email });
    const [before] = await rows(stack, 'select id, fetched_at, posts_fetched_at, insights_generated_at from prospect where id = ?', [first.data.prospect!.id]);

    stack.clock.advanceDays(29);
    stack.providerWorld.resetCalls();
    const cached = await researchCompleted(stack, key, { email: person.email });
    expect(providerCalls(stack)).toEqual({});
    expect(cached.meta.prospect).toEqual({ from_cache: true, cache_age_days: 29, source: 'sandbox' });

    stack.clock.advanceDays(1);
    stack.providerWorld.resetCalls();
    const modelCalls = stack.model.calls();
    const refreshed = await researchCompleted(stack, key, { email: person.email });
    const calls = providerCalls(stack);
    expect(calls['pdl.person']).toBe(1);
    expect(calls['social.person_posts']).toBe(1);
    // The company (90 days) and its decision makers (60 days) are still fresh.
    expect(companyProfileCalls(calls)).toBe(0);
    expect(calls['pdl.person_search'] ?? 0).toBe(0);
    expect(stack.model.calls()).toBeGreaterThan(modelCalls);
    expect(refreshed.meta.prospect).toEqual({ from_cache: false, cache_age_days: 0, source: 'sandbox' });
    expect(refreshed.data.prospect!.id).toBe(first.data.prospect!.id);
    expect(refreshed.data.company!.id).toBe(first.data.company!.id);

    const after = await rows(stack, 'select id, fetched_at, posts_fetched_at, insights_generated_at from prospect where email = ?', [person.email]);
    expect(after).toHaveLength(1);
    expect(after[0].id).toBe(before.id);
    for (const column of ['fetched_at', 'posts_fetched_at', 'insights_generated_at']) {
      expect(new Date(after[0][column]).getTime(), column).toBeGreaterThan(new Date(before[column]).getTime());
    }
  });
});

describe('decision makers: 60 days', () => {
  it('are re-fetched on day 60 without re-fetching the company profile', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 5);
    const first = await researchCompleted(stack, key, { email: person.email });
    expect(first.data.decision_makers.length).toBeGreaterThan(0);

    stack.clock.advanceDays(60);
    stack.providerWorld.resetCalls();
    const again = await researchCompleted(stack, key, { email: person.email });
    const calls = providerCalls(stack);
    expect(calls['pdl.person_search']).toBe(1);
    expect(companyProfileCalls(calls)).toBe(0);
    expect(again.data.company!.id).toBe(first.data.company!.id);
    expect(again.data.decision_makers.map((dm) => dm.full_name)).toEqual(first.data.decision_makers.map((dm) => dm.full_name));
    // Overwritten, not appended.
    const [count] = await rows(stack, 'select count(*)::int as n from decision_maker dm join company c on c.id = dm.company_id where c.account_id = ?', [accountId]);
    expect(count.n).toBe(first.data.decision_makers.length);
  });
});

describe('company data: 90 days', () => {
  it('is served from the cache on day 89 and re-fetched into the same row on day 90', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 8);
    const first = await researchCompleted(stack, key, { email: person.email });
    const [before] = await rows(stack, 'select id, fetched_at from company where account_id = ?', [accountId]);

    stack.clock.advanceDays(89);
    stack.providerWorld.resetCalls();
    const day89 = await researchCompleted(stack, key, { email: person.email });
    // Prospect (30 days) and decision makers (60 days) have expired; the company has not.
    expect(companyProfileCalls(providerCalls(stack))).toBe(0);
    expect(day89.meta.company.from_cache).toBe(true);

    stack.clock.advanceDays(1);
    stack.providerWorld.resetCalls();
    const day90 = await researchCompleted(stack, key, { email: person.email });
    expect(stack.providerWorld.calls('pdl.company')).toBe(1);
    expect(day90.meta.company.from_cache).toBe(false);
    expect(day90.meta.company.apis_called).toContain('pdl.company');
    expect(day90.data.company!.id).toBe(first.data.company!.id);
    const after = await rows(stack, 'select id, fetched_at from company where account_id = ?', [accountId]);
    expect(after).toHaveLength(1);
    expect(after[0].id).toBe(before.id);
    expect(new Date(after[0].fetched_at).getTime()).toBeGreaterThan(new Date(before.fetched_at).getTime());
  });
});

describe('posts', () => {
  it('are re-fetched when missing, without asking for the person again', async () => {
    const { key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', withPosts: true, companyKnownTo: 'both' }, 2);
    // The posts provider is down for the first job: the posts part degrades to null.
    stack.providerWorld.setFaults({ 'social.person_posts': { unavailableRate: 1 } });
    let first;
    try {
      first = await researchCompleted(stack, key, { email: person.email });
    } finally {
      stack.providerWorld.setFaults(null);
    }
    expect(first.data.prospect!.name).toBe(person.fullName);
    expect(first.data.prospect!.posts).toBeNull();

    stack.providerWorld.resetCalls();
    const second = await researchCompleted(stack, key, { email: person.email });
    const calls = providerCalls(stack);
    expect(calls['social.person_posts']).toBe(1);
    expect(calls['pdl.person'] ?? 0).toBe(0);
    expect(calls['apollo.people_match'] ?? 0).toBe(0);
    expect(second.meta.prospect.from_cache).toBe(true);
    expect(second.data.prospect!.posts!.length).toBeGreaterThan(0);
    expect(second.data.prospect!.posts!.length).toBeLessThanOrEqual(3);
    // The posts changed: the prospect's AI part is rewritten with their summaries.
    expect(second.data.prospect!.posts!.every((post) => typeof post.summary === 'string' && post.summary.length > 0)).toBe(true);
    expect(second.data.prospect!.id).toBe(first.data.prospect!.id);
  });
});

describe('an overwrite after the TTL', () => {
  it('leaves nothing of the old prospect behind when the person is no longer found', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const known = samplePerson(stack, { knownTo: 'both', withPosts: true, companyKnownTo: 'both' }, 12);
    const company = stack.providerWorld.world.companies[known.company];
    const gone = stack.providerWorld.world.unmatchedEmail(company);
    const found = await researchCompleted(stack, key, { email: known.email });
    const notFound = await researchCompleted(stack, key, { email: gone });
    // The address once belonged to someone who has since left: their data sits in the row, 31 days old.
    const monthAgo = new Date(stack.clock.now().getTime() - 31 * 24 * 60 * 60 * 1000);
    await rows(
      stack,
      `update prospect p set profile = k.profile, source = k.source, posts = k.posts, insights = k.insights,
              fetched_at = ?, posts_fetched_at = ?, insights_generated_at = ?
         from prospect k where p.id = ? and k.id = ? and p.account_id = ?`,
      [monthAgo, monthAgo, monthAgo, notFound.data.prospect!.id, found.data.prospect!.id, accountId],
    );
    stack.providerWorld.resetCalls();
    const refreshed = await researchCompleted(stack, key, { email: gone });
    expect(stack.providerWorld.calls('pdl.person')).toBe(1);
    expect(refreshed.data.prospect!.id).toBe(notFound.data.prospect!.id);
    expect(refreshed.data.prospect).toMatchObject({ name: null, title: null, summary: null, opening_talk: null, social_url: null, posts: null });
    expect(refreshed.meta.prospect).toMatchObject({ from_cache: false, source: null });
  });

  it('leaves nothing of the old company behind when the company is no longer found', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const known = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 13);
    const found = await researchCompleted(stack, key, { email: known.email });
    expect(found.data.decision_makers.length).toBeGreaterThan(0);
    const unknown = await researchCompleted(stack, key, { email: 'someone@no-such-company-anywhere.com' });
    expect(unknown.data.company).toBeNull();
    // The domain once belonged to a company the providers have since dropped: its data is 91 days old.
    const [row] = await rows(stack, 'select id from company where account_id = ? and company_key = ?', [accountId, 'no-such-company-anywhere.com']);
    const longAgo = new Date(stack.clock.now().getTime() - 91 * 24 * 60 * 60 * 1000);
    await rows(
      stack,
      `update company c set profile = k.profile, source = k.source, technologies = k.technologies, posts = k.posts, news = k.news,
              insights = k.insights, fetched_at = ?, posts_fetched_at = ?, news_fetched_at = ?, decision_makers_fetched_at = ?
         from company k where c.id = ? and k.id = ?`,
      [longAgo, longAgo, longAgo, longAgo, row.id, found.data.company!.id],
    );
    await rows(
      stack,
      `insert into decision_maker (company_id, full_name, position_title, social_url, picture_url, location_text, company_name)
       select ?, full_name, position_title, social_url, picture_url, location_text, company_name from decision_maker where company_id = ?`,
      [row.id, found.data.company!.id],
    );

    const refreshed = await researchCompleted(stack, key, { email: 'someone@no-such-company-anywhere.com' });
    expect(refreshed.data.company).toBeNull();
    expect(refreshed.data.decision_makers).toEqual([]);
    const [after] = await rows(stack, 'select insights, posts, technologies from company where id = ?', [row.id]);
    expect(after).toEqual({ insights: null, posts: null, technologies: null });
  });
});
