import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Language } from '../../domain/research/languages.ts';
import type { ResearchData } from '../../domain/research/reply.ts';
import { judgeLanguage } from '../ai/ai-fixtures.ts';
import { providerCalls, researchCompleted, rows, type CompletedResearch } from '../helpers/research-runs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/decisions.md#data-and-ai: cached AI texts remember their
// language. After the account's language changes, a job over cached data
// rewrites only the AI texts (docs/api.md#freshness, `needsAI`, no provider call) and
// stores them in the new language; the next job in that language is a plain
// cache hit again.

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const COMPANY_ENDPOINTS = ['pdl.company', 'apollo.organization_enrich', 'social.company_posts', 'pdl.person_search', 'news.everything', 'site'];

/** Two colleagues with posts, at a company every provider knows. */
function colleagues(): [string, string] {
  const { world } = stack.providerWorld;
  for (const person of world.samplePeople({ knownTo: 'both', withPosts: true, companyKnownTo: 'both', withPromptInjection: false }, 2000)) {
    const other = world
      .peopleOf(world.companies[person.company])
      .find((colleague) => colleague.email !== person.email && colleague.coverage === 'both' && colleague.postCount > 0);
    if (other) return [person.email, other.email];
  }
  throw new Error('no two colleagues in the sandbox world');
}

function prospectText(data: ResearchData): string {
  const { prospect } = data;
  return [prospect!.summary!, ...prospect!.opening_talk!, ...prospect!.posts!.map((post) => post.summary!)].join(' ');
}

function companyText(data: ResearchData): string {
  const { company } = data;
  return [company!.problems, company!.services, company!.icp, company!.synergy_points, company!.discovery_questions, company!.insights]
    .flatMap((list) => list!)
    .join(' ');
}

async function storedLanguages(reply: CompletedResearch): Promise<[Language | null, Language | null]> {
  const [prospect] = await rows(stack, 'select insights_language from prospect where id = ?', [reply.data.prospect!.id]);
  const [company] = await rows(stack, 'select insights_language from company where id = ?', [reply.data.company!.id]);
  return [prospect.insights_language, company.insights_language];
}

async function setLanguage(accountId: number, language: Language): Promise<void> {
  // What Preferences → language stores (PUT /app/api/preferences).
  await rows(stack, 'update account set language = ? where id = ?', [language, accountId]);
}

describe('the output language changes after a company and a prospect were researched', () => {
  it('rewrites only the AI texts in the new language, asks no provider for cached data, then hits the cache again', async () => {
    const { accountId, key } = await stack.createCustomer('growth', 'en');
    const [first, colleague] = colleagues();

    const english = await researchCompleted(stack, key, { email: first });
    const decisionMakerIds = await rows(stack, 'select id from decision_maker where company_id = ? order by id', [english.data.company!.id]);
    expect(decisionMakerIds.length).toBeGreaterThan(0);
    expect(judgeLanguage(prospectText(english.data))).toBe('en');
    expect(judgeLanguage(companyText(english.data))).toBe('en');
    expect(await storedLanguages(english)).toEqual(['en', 'en']);

    await setLanguage(accountId, 'de');

    // A colleague: a new prospect at the cached company. Only the person is fetched.
    stack.providerWorld.resetCalls();
    const colleagueReply = await researchCompleted(stack, key, { email: colleague });
    expect(Object.keys(providerCalls(stack)).filter((endpoint) => COMPANY_ENDPOINTS.includes(endpoint))).toEqual([]);
    expect(colleagueReply.meta.company).toEqual({ from_cache: true, apis_called: [] });
    expect(colleagueReply.data.company!.id).toBe(english.data.company!.id);
    expect(judgeLanguage(companyText(colleagueReply.data))).toBe('de');
    expect(judgeLanguage(prospectText(colleagueReply.data))).toBe('de');
    expect(colleagueReply.meta.ai.generated).toBe(true);
    expect(await storedLanguages(colleagueReply)).toEqual(['de', 'de']);
    // The company's data is the cached data; only its AI texts changed.
    expect(colleagueReply.data.company!.name).toBe(english.data.company!.name);
    expect(await rows(stack, 'select id from decision_maker where company_id = ? order by id', [english.data.company!.id])).toEqual(decisionMakerIds);
    expect(colleagueReply.data.company!.problems).not.toEqual(english.data.company!.problems);

    // The first prospect again: cached in English, company now German. No provider at all.
    stack.providerWorld.resetCalls();
    let modelCalls = stack.model.calls();
    const german = await researchCompleted(stack, key, { email: first });
    expect(providerCalls(stack)).toEqual({});
    expect(stack.model.calls()).toBeGreaterThan(modelCalls);
    expect(german.meta.prospect).toEqual({ from_cache: true, cache_age_days: 0, source: 'sandbox' });
    expect(german.meta.company).toEqual({ from_cache: true, apis_called: [] });
    expect(judgeLanguage(prospectText(german.data))).toBe('de');
    expect(judgeLanguage(companyText(german.data))).toBe('de');
    expect(german.data.prospect!.id).toBe(english.data.prospect!.id);
    expect(german.data.prospect!.name).toBe(english.data.prospect!.name);
    expect(german.data.prospect!.posts!.map((post) => post.post_url)).toEqual(english.data.prospect!.posts!.map((post) => post.post_url));
    expect(await storedLanguages(german)).toEqual(['de', 'de']);
    // The company half was already German: the model was asked for the prospect only.
    const lastRequests = stack.model.requests().slice(-1);
    expect(lastRequests.map((request) => [request.schemaName, request.language])).toEqual([['prospect_insights', 'de']]);

    // Same language again: a full cache hit for both, nothing asked of anyone.
    for (const [email, before] of [[first, german], [colleague, colleagueReply]] as const) {
      stack.providerWorld.resetCalls();
      modelCalls = stack.model.calls();
      const hit = await researchCompleted(stack, key, { email });
      expect([providerCalls(stack), stack.model.calls() - modelCalls]).toEqual([{}, 0]);
      expect(hit.meta.ai.generated).toBe(false);
      expect(hit.data).toEqual(before.data);
    }
  });
});
