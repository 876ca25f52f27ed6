import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanName } from '../../domain/billing/plans.ts';
import { changePlan } from '../../services/accounts/accounts.ts';
import { companyNews } from '../../sandbox/provider-world/posts-and-news.ts';
import { providerCalls, researchCompleted } from '../helpers/research-runs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/decisions.md#plans: decision makers on Growth and Scale only, company news
// on Scale only (at most 3 items, at most 12 months old, `date` YYYY-MM).
// A plan without a part does not pay a provider for it either.

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const EXPECTED: Record<PlanName, { decisionMakers: boolean; news: boolean }> = {
  free: { decisionMakers: false, news: false },
  starter: { decisionMakers: false, news: false },
  growth: { decisionMakers: true, news: false },
  scale: { decisionMakers: true, news: true },
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** A well-known person whose company's news articles (ages in days) satisfy `predicate`. */
function personWhoseCompanyNews(predicate: (agesInDays: number[]) => boolean) {
  const world = stack.providerWorld.world;
  const person = world
    .samplePeople({ knownTo: 'both', companyKnownTo: 'both' }, 500)
    .find((candidate) => predicate(companyNews(world, world.companies[candidate.company]).map((a) => (world.now.getTime() - a.publishedAt.getTime()) / DAY_MS)));
  if (!person) throw new Error('no such person in the sandbox world');
  return person;
}

function monthsAgo(months: number): string {
  const date = new Date();
  date.setUTCMonth(date.getUTCMonth() - months);
  return date.toISOString().slice(0, 7);
}

describe.each(Object.entries(EXPECTED) as Array<[PlanName, (typeof EXPECTED)[PlanName]]>)('the %s plan', (plan, expected) => {
  it(`decision makers ${expected.decisionMakers ? 'listed' : '[]'}, news ${expected.news ? 'listed' : '[]'}`, async () => {
    const { key } = await stack.createCustomer(plan);
    // The same person for every plan, at a company with more recent news than a reply may hold.
    const person = personWhoseCompanyNews((ages) => ages.filter((age) => age < 350).length >= 4);
    stack.providerWorld.resetCalls();
    const done = await researchCompleted(stack, key, { email: person.email });
    const calls = providerCalls(stack);

    expect(done.data.company!.name).toBeTruthy();
    if (expected.decisionMakers) {
      expect(done.data.decision_makers.length).toBeGreaterThan(0);
      const colleagues = stack.providerWorld.world.peopleOf(stack.providerWorld.world.companies[person.company]);
      const seniorityOf = new Map(colleagues.map((colleague) => [colleague.linkedinUrl, colleague.seniority]));
      for (const dm of done.data.decision_makers) {
        expect(dm.company_name).toBe(done.data.company!.name);
        expect(['c_suite', 'vp', 'director']).toContain(seniorityOf.get(dm.social_url));
      }
    } else {
      expect(done.data.decision_makers).toEqual([]);
      expect(calls['pdl.person_search'] ?? 0).toBe(0);
    }

    const news = done.data.company!.news;
    if (expected.news) {
      expect(calls['news.everything']).toBe(1);
      expect(news!.length).toBeGreaterThan(0);
      expect(news!.length).toBeLessThanOrEqual(3);
      for (const item of news!) {
        expect(item.date).toMatch(/^\d{4}-(0[1-9]|1[0-2])$/);
        expect(item.date >= monthsAgo(12)).toBe(true);
        expect(item.url).toMatch(/^https?:\/\//);
        expect(typeof item.summary).toBe('string');
      }
    } else {
      expect(news).toEqual([]);
      expect(calls['news.everything'] ?? 0).toBe(0);
    }
  });
});

describe('news on Scale', () => {
  it('stays at most 12 months old when served from the cache months later', async () => {
    const { key } = await stack.createCustomer('scale');
    // Every article of the last year fits in the reply, and one of them will age out within 80 days.
    const person = personWhoseCompanyNews((ages) => {
      const recent = ages.filter((age) => age < 360);
      return recent.length > 0 && recent.length <= 3 && recent.some((age) => age > 290 && age < 355);
    });
    const first = await researchCompleted(stack, key, { email: person.email });
    const ageing = companyNews(stack.providerWorld.world, stack.providerWorld.world.companies[person.company]).find((article) => {
      const age = (stack.providerWorld.world.now.getTime() - article.publishedAt.getTime()) / DAY_MS;
      return age > 290 && age < 355;
    })!;
    expect(first.data.company!.news!.map((item) => item.url)).toContain(ageing.url);

    // Within the company's 90-day window the news is not fetched again, but the
    // reply still drops what has grown older than 12 months.
    stack.clock.advanceDays(80);
    stack.providerWorld.resetCalls();
    const later = await researchCompleted(stack, key, { email: person.email });
    expect(stack.providerWorld.calls('news.everything')).toBe(0);
    expect(later.data.company!.news!.map((item) => item.url)).not.toContain(ageing.url);
    const cutoff = new Date(stack.clock.now());
    cutoff.setUTCMonth(cutoff.getUTCMonth() - 12);
    for (const item of later.data.company!.news!) expect(item.date >= cutoff.toISOString().slice(0, 7)).toBe(true);
  });
});

describe('an upgrade', () => {
  it('fetches the parts the new plan adds at the next request, without re-fetching the cached company', async () => {
    const { accountId, key } = await stack.createCustomer('starter');
    const person = personWhoseCompanyNews((ages) => ages.some((age) => age < 300));
    const starter = await researchCompleted(stack, key, { email: person.email });
    expect([starter.data.decision_makers, starter.data.company!.news]).toEqual([[], []]);

    await changePlan(stack.orm.em.fork(), accountId, 'growth', stack.clock.now());
    stack.providerWorld.resetCalls();
    const growth = await researchCompleted(stack, key, { email: person.email });
    expect(providerCalls(stack)).toEqual({ 'pdl.person_search': 1 });
    expect(growth.data.decision_makers.length).toBeGreaterThan(0);
    expect(growth.data.company!.news).toEqual([]);

    await changePlan(stack.orm.em.fork(), accountId, 'scale', stack.clock.now());
    stack.providerWorld.resetCalls();
    const scale = await researchCompleted(stack, key, { email: person.email });
    expect(providerCalls(stack)).toEqual({ 'news.everything': 1 });
    expect(scale.data.company!.news!.length).toBeGreaterThan(0);
    expect(scale.data.company!.news!.every((item) => typeof item.summary === 'string')).toBe(true);
    expect(scale.data.decision_makers).toEqual(growth.data.decision_makers);
  });
});

describe('a downgrade', () => {
  it('hides decision makers and news from the next cycle on, even while they are still cached', async () => {
    const { accountId, key } = await stack.createCustomer('scale');
    const person = personWhoseCompanyNews((ages) => ages.some((age) => age < 200));
    const scale = await researchCompleted(stack, key, { email: person.email });
    expect(scale.data.decision_makers.length).toBeGreaterThan(0);
    expect(scale.data.company!.news!.length).toBeGreaterThan(0);

    await changePlan(stack.orm.em.fork(), accountId, 'starter', stack.clock.now());
    // Still Scale until the cycle ends (docs/decisions.md#plans).
    expect((await researchCompleted(stack, key, { email: person.email })).data.decision_makers.length).toBeGreaterThan(0);

    // The next cycle: the company (90 days) and its decision makers (60 days) are still cached.
    stack.clock.advanceDays(32);
    stack.providerWorld.resetCalls();
    const starter = await researchCompleted(stack, key, { email: person.email });
    const calls = providerCalls(stack);
    expect([calls['pdl.person_search'] ?? 0, calls['news.everything'] ?? 0]).toEqual([0, 0]);
    expect(starter.data.decision_makers).toEqual([]);
    expect(starter.data.company!.news).toEqual([]);
    expect(starter.data.company!.id).toBe(scale.data.company!.id);
  });
});
