import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMPANY_LIST_COUNT, DISCOVERY_QUESTION_COUNT, OPENING_TALK_COUNT } from '../../domain/research/insights.ts';
import { startModelSandbox, type ModelSandbox } from '../../sandbox/model/model-sandbox.ts';
import { insightsInput, judgeLanguage, post, sandboxGenerator } from './ai-fixtures.ts';

let sandbox: ModelSandbox;
beforeAll(async () => {
  sandbox = await startModelSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

describe('insights generator against the model sandbox', () => {
  it('returns both halves with the exact list sizes, one summary per post and news item', async () => {
    const input = insightsInput({ personPosts: [post('a', 1), post('b', 2), post('c', 3)], companyPosts: [post('d', 4), post('e', 5), post('f', 6)] });
    const result = await sandboxGenerator(sandbox).generate(input);

    expect(result.prospect).not.toBeNull();
    expect(result.prospect!.openingTalk).toHaveLength(OPENING_TALK_COUNT);
    expect(result.prospect!.postSummaries).toHaveLength(3);
    expect(result.prospect!.summary.length).toBeGreaterThan(20);
    const company = result.company!;
    for (const list of [company.problems, company.services, company.icp, company.synergyPoints, company.insights]) {
      expect(list).toHaveLength(COMPANY_LIST_COUNT);
    }
    expect(company.discoveryQuestions).toHaveLength(DISCOVERY_QUESTION_COUNT);
    expect(company.newsSummaries).toHaveLength(2);
    expect(company.postSummaries).toHaveLength(3);
    for (const text of [...company.problems, ...company.services, ...company.icp, ...company.synergyPoints, ...company.insights]) {
      expect(text.trim()).not.toBe('');
    }
  });

  it('makes one call per half, in parallel, and sums the token usage of both', async () => {
    sandbox.setLatency(300);
    const startedAt = Date.now();
    const result = await sandboxGenerator(sandbox).generate(insightsInput());
    const elapsedMs = Date.now() - startedAt;

    expect(sandbox.calls()).toBe(2);
    expect(sandbox.requests().map((request) => request.schemaName).sort()).toEqual(['company_insights', 'prospect_insights']);
    expect(sandbox.requests().every((request) => request.isStrict && request.status === 200)).toBe(true);
    expect(elapsedMs).toBeLessThan(550); // two sequential calls would take at least 600 ms
    expect(result.usage.calls).toBe(2);
    expect(result.usage.promptTokens).toBeGreaterThan(100);
    expect(result.usage.completionTokens).toBeGreaterThan(50);
    expect(result.source).toBe('sandbox');
    expect(result.model).toBe('gpt-4o-mini');
  });

  it('ties synergy points and discovery questions to the caller\'s product by name', async () => {
    const result = await sandboxGenerator(sandbox).generate(insightsInput());
    for (const text of [...result.company!.synergyPoints, ...result.company!.discoveryQuestions]) expect(text).toContain('PipelinePilot');
  });

  it('grounds opening talks and post summaries in the posts it was given', async () => {
    const result = await sandboxGenerator(sandbox).generate(insightsInput({ personPosts: [post('Our partner programme goes live in Spain today.')] }));
    expect(result.prospect!.postSummaries[0]).toContain('Our partner programme goes live in');
    expect(result.prospect!.openingTalk[0]).toContain('Our partner programme goes live in');
    const [request] = sandbox.requests();
    expect(request.messages[0].content).toContain('exactly 1 items');
  });

  it('translates a non-English title and description to English, and keeps an English title', async () => {
    const result = await sandboxGenerator(sandbox).generate(insightsInput({ language: 'pl' }));
    expect(result.prospect!.titleEnglish).toBe('Marketing Director');
    expect(result.company!.descriptionEnglish).toContain('Lumière Logiciels');
    expect(judgeLanguage(result.company!.descriptionEnglish!)).toBe('en');
    const system = sandbox.requests().find((request) => request.schemaName === 'prospect_insights')!.messages[0].content;
    expect(system).toMatch(/"titleEnglish" must always be in English/);

    const english = await sandboxGenerator(sandbox).generate(insightsInput({ person: { ...insightsInput().person!, title: 'VP of Sales' } }));
    expect(english.prospect!.titleEnglish).toBe('VP of Sales');
  });

  it('leaves title and description null (and out of the schema) when the source has none', async () => {
    const base = insightsInput();
    const result = await sandboxGenerator(sandbox).generate(insightsInput({ person: { ...base.person!, title: null }, company: { ...base.company!, description: null } }));
    expect(result.prospect!.titleEnglish).toBeNull();
    expect(result.company!.descriptionEnglish).toBeNull();
  });

  it('generates only the halves input.needs asks for', async () => {
    const prospectOnly = await sandboxGenerator(sandbox).generate(insightsInput({ needs: { prospect: true, company: false } }));
    expect(prospectOnly.company).toBeNull();
    expect(prospectOnly.prospect).not.toBeNull();
    expect(sandbox.requests().map((request) => request.schemaName)).toEqual(['prospect_insights']);

    sandbox.reset();
    const companyOnly = await sandboxGenerator(sandbox).generate(insightsInput({ needs: { prospect: false, company: true } }));
    expect(companyOnly.prospect).toBeNull();
    expect(companyOnly.company).not.toBeNull();
    expect(sandbox.requests().map((request) => request.schemaName)).toEqual(['company_insights']);

    sandbox.reset();
    const nothing = await sandboxGenerator(sandbox).generate(insightsInput({ needs: { prospect: false, company: false } }));
    expect(nothing).toMatchObject({ prospect: null, company: null, usage: { calls: 0, promptTokens: 0, completionTokens: 0 } });
    expect(sandbox.calls()).toBe(0);
  });

  it('leaves a half null without a model call when its subject was not found', async () => {
    const result = await sandboxGenerator(sandbox).generate(insightsInput({ person: null, personPosts: [] }));
    expect(result.prospect).toBeNull();
    expect(result.company).not.toBeNull();
    expect(sandbox.requests().map((request) => request.schemaName)).toEqual(['company_insights']);
  });

  it('sends only this job\'s product context', async () => {
    const otherProduct = { name: 'Ledgerly', description: 'Invoicing on autopilot.', keyFeatures: ['payment reminders'], targetCustomers: ['finance teams'], productUrl: null };
    await sandboxGenerator(sandbox).generate(insightsInput({ productContext: otherProduct }));
    const prompts = sandbox.requests().flatMap((request) => request.messages.map((message) => message.content)).join('\n');
    expect(prompts).toContain('Ledgerly');
    expect(prompts).not.toContain('PipelinePilot');
  });
});
