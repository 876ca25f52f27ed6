import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_NAMES, LANGUAGES } from '../../domain/research/languages.ts';
import { startModelSandbox, type ModelSandbox } from '../../sandbox/model/model-sandbox.ts';
import { insightsInput, judgeLanguage, sandboxGenerator } from './ai-fixtures.ts';

let sandbox: ModelSandbox;
beforeAll(async () => {
  sandbox = await startModelSandbox();
});
afterAll(() => sandbox.close());

describe('output language', () => {
  it.each(LANGUAGES)('asks for and gets every AI-written text in %s, with title and description in English', async (language) => {
    sandbox.reset();
    const result = await sandboxGenerator(sandbox).generate(insightsInput({ language }));

    const requests = sandbox.requests();
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      const system = request.messages.find((message) => message.role === 'system')!.content;
      expect(system).toContain(`Output language: ${LANGUAGE_NAMES[language]} (${language}).`);
      expect(request.language).toBe(language);
    }

    const prospectText = [result.prospect!.summary, ...result.prospect!.openingTalk, ...result.prospect!.postSummaries].join(' ');
    const company = result.company!;
    const companyText = [...company.problems, ...company.services, ...company.icp, ...company.synergyPoints, ...company.discoveryQuestions, ...company.insights, ...company.newsSummaries].join(' ');
    expect(judgeLanguage(prospectText)).toBe(language);
    expect(judgeLanguage(companyText)).toBe(language);
    expect(result.prospect!.titleEnglish).toBe('Marketing Director');
    expect(judgeLanguage(company.descriptionEnglish!)).toBe('en');
  });
});
