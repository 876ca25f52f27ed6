import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_NAMES, LANGUAGES, type Language } from '../../domain/research/languages.ts';
import { PHRASEBOOKS, type WriterFacts } from '../../sandbox/model/phrasebooks/index.ts';
import { judgeLanguage } from '../ai/ai-fixtures.ts';
import { SAMPLE_PRODUCT, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { isEnglishTitle, modelUsageOf, pickPeople, requestsAbout, research, type Completed } from './insight-helpers.ts';

// Languages through the real pipeline: API → workflow → real OpenAI client → model sandbox → API reply.

let stack: TestStack;
const results = new Map<Language, { reply: Completed; names: string[]; sourceDescription: string }>();

beforeAll(async () => {
  stack = await startTestStack();
  // One account per language, each researching someone at a company whose
  // provider description is not English, all jobs in flight together.
  const people = pickPeople(stack, LANGUAGES.length, { knownTo: 'both', companyKnownTo: 'both', withPosts: true, withPromptInjection: false }, (_p, c) => !c.isEnglishDescription);
  await Promise.all(
    LANGUAGES.map(async (language, index) => {
      const { key } = await stack.createCustomer('scale', language);
      const { person, company } = people[index];
      results.set(language, { reply: await research(stack, key, person.email), names: [person.fullName, company.name], sourceDescription: company.description });
    }),
  );
}, 180_000);
afterAll(() => stack?.stop());

// Facts the phrasebooks' fact-free sentences ignore; only those sentences are compared.
const ANY_FACTS: WriterFacts = { person: '', firstName: '', title: '', company: '', industry: null, product: '', feature: () => '' };

describe.each(LANGUAGES)('an account whose language is %s', (language) => {
  it('asks the model for that language in every request of the job', () => {
    const { names } = results.get(language)!;
    const requests = requestsAbout(stack, ...names);
    expect(requests.map((request) => request.schemaName).sort()).toEqual(['company_insights', 'prospect_insights']);
    for (const request of requests) {
      expect(request.language).toBe(language);
      const system = request.messages.find((message) => message.role === 'system')!.content;
      expect(system).toContain(`Output language: ${LANGUAGE_NAMES[language]} (${language}).`);
      expect(request.status).toBe(200);
    }
  });

  it('gets every AI-written text in that language', () => {
    const { prospect, company } = results.get(language)!.reply.data;
    const prospectText = [prospect!.summary!, ...prospect!.opening_talk!, ...prospect!.posts!.map((post) => post.summary!)].join(' ');
    const companyText = [company!.problems, company!.services, company!.icp, company!.synergy_points, company!.discovery_questions, company!.insights]
      .flatMap((list) => list!)
      .join(' ');
    expect(judgeLanguage(prospectText)).toBe(language);
    expect(judgeLanguage(companyText)).toBe(language);
    // The sandbox writes from its phrasebook for the language it was asked for.
    const book = PHRASEBOOKS[language];
    expect(company!.problems).toContain(book.problems(ANY_FACTS)[1]);
    expect(company!.insights).toContain(book.insights(ANY_FACTS)[3]);
  });

  it('keeps prospect.title and company.description in English', () => {
    const { reply, sourceDescription } = results.get(language)!;
    const { prospect, company } = reply.data;
    expect(isEnglishTitle(prospect!.title!), prospect!.title!).toBe(true);
    // The providers' description is not English (see beforeAll): it was translated.
    expect(judgeLanguage(sourceDescription)).not.toBe('en');
    expect(company!.description).not.toBe(sourceDescription);
    expect(judgeLanguage(company!.description!), company!.description!).toBe('en');
  });

  it('returns exact list sizes, post summaries and synergy points that name the product', () => {
    const { prospect, company } = results.get(language)!.reply.data;
    expect(prospect!.opening_talk).toHaveLength(3);
    expect(prospect!.posts!.length).toBeGreaterThan(0);
    expect(prospect!.posts!.length).toBeLessThanOrEqual(3);
    for (const post of prospect!.posts!) expect(post.summary).toEqual(expect.any(String));
    for (const field of ['problems', 'services', 'icp', 'synergy_points', 'insights'] as const) expect(company![field], field).toHaveLength(4);
    expect(company!.discovery_questions).toHaveLength(3);
    expect(company!.posts!.length).toBeLessThanOrEqual(3);
    for (const post of company!.posts!) expect(post.summary).toEqual(expect.any(String));
    expect(company!.news!.length).toBeLessThanOrEqual(3);
    for (const item of company!.news!) expect(item.summary).toEqual(expect.any(String));
    for (const point of company!.synergy_points!) expect(point).toContain(SAMPLE_PRODUCT.name);
    for (const question of company!.discovery_questions!) expect(question).toContain(SAMPLE_PRODUCT.name);
  });

  it('records the token usage of the job', async () => {
    const { reply, names } = results.get(language)!;
    const usage = await modelUsageOf(stack, reply.research_id);
    expect(usage).toMatchObject({ calls: requestsAbout(stack, ...names).length });
    expect(usage!.promptTokens).toBeGreaterThan(0);
    expect(usage!.completionTokens).toBeGreaterThan(0);
    expect(reply._meta?.ai).toEqual({ source: 'sandbox', generated: true });
  });
});

describe('a prospect whose title is not in English', () => {
  it.each(['pl', 'en'] as const)('gets an English title on a %s account', async (language) => {
    const [{ person }] = pickPeople(stack, 1, { knownTo: 'both', nonEnglishTitle: true, withPromptInjection: false }, (p) => !isEnglishTitle(p.title));
    const { key } = await stack.createCustomer('growth', language);
    const reply = await research(stack, key, person.email);
    const title = reply.data.prospect!.title!;
    expect(title).not.toBe(person.title);
    expect(isEnglishTitle(title), `${person.title} → ${title}`).toBe(true);
    expect(judgeLanguage(reply.data.prospect!.summary!)).toBe(language);
  });
});
