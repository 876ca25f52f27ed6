import { describe, expect, it } from 'vitest';
import { isFullCacheHit, planCompany, planProspect, type CachedCompany, type CachedProspect } from '../../domain/enrichment/cache-flags.ts';
import type { CompanyInsights, ProspectInsights } from '../../domain/research/insights.ts';
import type { ResearchPlan } from '../../domain/research/pipeline.ts';

// The `needsAI` flag of docs/api.md#freshness also fires for cached AI texts
// in another language than the job's, and for texts of unknown language
// (written before languages were recorded). Pure rules, fixed clock.

const now = new Date('2026-11-25T12:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000);
const prospectInsights: ProspectInsights = { titleEnglish: 'CTO', summary: 's', openingTalk: ['a', 'b', 'c'], postSummaries: [] };
const companyInsights = { problems: ['p'] } as unknown as CompanyInsights;
const entitlements = { decisionMakers: false, companyNews: false };

function prospect(overrides: Partial<CachedProspect> = {}): CachedProspect {
  return {
    profile: { fullName: 'Ada', socialUrl: null } as unknown as CachedProspect['profile'],
    fetchedAt: daysAgo(1),
    insights: prospectInsights,
    insightsLanguage: 'en',
    ...overrides,
  };
}

function company(overrides: Partial<CachedCompany> = {}): CachedCompany {
  return {
    companyKey: 'example.com',
    profile: { name: 'Example', website: null } as unknown as CachedCompany['profile'],
    apisCalled: [],
    fetchedAt: daysAgo(1),
    postsFetchedAt: daysAgo(1),
    technologies: [],
    insights: companyInsights,
    insightsLanguage: 'en',
    ...overrides,
  };
}

describe('needsAI and the language of cached AI texts', () => {
  it('is off when the cached texts are in the job\'s language', () => {
    expect(planProspect(prospect(), now, 'en').needsAI).toBe(false);
    expect(planCompany('example.com', company(), entitlements, now, 'en').needsAI).toBe(false);
  });

  it('is on, with no fetch, when they are in another language', () => {
    const prospectPlan = planProspect(prospect(), now, 'de');
    expect([prospectPlan.needsAI, prospectPlan.needsFetch, prospectPlan.needsPosts]).toEqual([true, false, false]);
    const companyPlan = planCompany('example.com', company(), entitlements, now, 'de');
    expect([companyPlan.needsAI, companyPlan.needsFetch, companyPlan.needsPosts]).toEqual([true, false, false]);
  });

  it('is on when their language is unknown (rows written before it was recorded)', () => {
    expect(planProspect(prospect({ insightsLanguage: null }), now, 'en').needsAI).toBe(true);
    expect(planCompany('example.com', company({ insightsLanguage: undefined }), entitlements, now, 'en').needsAI).toBe(true);
  });

  it('is on for stale data in another language too, so a failed refresh still gets texts in the job\'s language', () => {
    expect(planProspect(prospect({ fetchedAt: daysAgo(40) }), now, 'de')).toMatchObject({ needsFetch: true, needsAI: true });
    expect(planCompany('example.com', company({ fetchedAt: daysAgo(100) }), entitlements, now, 'de')).toMatchObject({ needsFetch: true, needsAI: true });
  });

  it('asks nothing of the model for a record without a profile, whatever the language', () => {
    expect(planProspect(prospect({ profile: null, insights: null, insightsLanguage: null }), now, 'de').needsAI).toBe(false);
    expect(planCompany('example.com', company({ profile: null, insights: null, insightsLanguage: null }), entitlements, now, 'de').needsAI).toBe(false);
  });

  it('makes a job over cached data in another language no full cache hit', () => {
    const planFor = (language: 'en' | 'de'): ResearchPlan =>
      ({
        prospect: planProspect(prospect(), now, language),
        company: planCompany('example.com', company(), entitlements, now, language),
      }) as ResearchPlan;
    expect(isFullCacheHit(planFor('en'))).toBe(true);
    expect(isFullCacheHit(planFor('de'))).toBe(false);
  });
});
