import { z } from 'zod';
import type { CompanyProfile } from '../../domain/enrichment/enrichment.ts';
import type { CompanyInsights, InsightsInput } from '../../domain/research/insights.ts';
import { COMPANY_LIST_COUNT, DISCOVERY_QUESTION_COUNT } from '../../domain/research/insights.ts';
import type { StructuredRequest } from './ai-client.ts';
import { zText, zTexts } from './answer-repair.ts';
import { companyFacts, newsFacts, personFacts, postFacts, productFacts } from './insights-payload.ts';
import { safetyAndLanguageRules, untrustedBlock } from './untrusted-data.ts';

export const COMPANY_SCHEMA_NAME = 'company_insights';

/** The model's answer: the company insights, with the translation only when there was a description. */
export type CompanyAnswer = Omit<CompanyInsights, 'descriptionEnglish'> & { descriptionEnglish?: string };

export function companyAnswerSchema(newsCount: number, postCount: number, hasDescription: boolean): z.ZodType<CompanyAnswer> {
  const shape = {
    ...(hasDescription ? { descriptionEnglish: zText() } : {}),
    problems: zTexts(COMPANY_LIST_COUNT),
    services: zTexts(COMPANY_LIST_COUNT),
    icp: zTexts(COMPANY_LIST_COUNT),
    synergyPoints: zTexts(COMPANY_LIST_COUNT),
    discoveryQuestions: zTexts(DISCOVERY_QUESTION_COUNT),
    insights: zTexts(COMPANY_LIST_COUNT),
    newsSummaries: zTexts(newsCount),
    postSummaries: zTexts(postCount),
  };
  return z.object(shape) as unknown as z.ZodType<CompanyAnswer>;
}

export function companyRequest(input: InsightsInput, company: CompanyProfile): StructuredRequest<CompanyAnswer> {
  const hasDescription = company.description !== null && company.description.trim() !== '';
  // The product name is caller-written text too: it stays in the data block, never in the system message.
  const productName = input.productContext.name;
  const n = COMPANY_LIST_COUNT;
  const system = [
    'You are a B2B sales researcher analysing a prospect\'s company for a seller.',
    safetyAndLanguageRules(input.language, hasDescription ? ['descriptionEnglish'] : []),
    'Fields:',
    ...(hasDescription ? ['- descriptionEnglish: the company description (payload "company.description") in English, faithful to the source.'] : []),
    `- problems: exactly ${n} problems the company solves for its customers.`,
    `- services: exactly ${n} main services or products of the company.`,
    `- icp: exactly ${n} ideal customer profiles of the company.`,
    `- synergyPoints: exactly ${n} concrete connections between the company's situation and the seller's product; every item names the seller's product by its name (payload "product.name") and the feature or benefit that applies.`,
    `- discoveryQuestions: exactly ${DISCOVERY_QUESTION_COUNT} discovery questions the seller can ask this prospect (payload "prospect"), each naming the seller's product by its name (payload "product.name").`,
    `- insights: exactly ${n} competitive insights about the company's market position.`,
    `- newsSummaries: exactly ${input.news.length} items, a one-sentence summary of each article in payload "news", in the same order.`,
    `- postSummaries: exactly ${input.companyPosts.length} items, a one-sentence summary of each post in payload "companyPosts", in the same order.`,
  ].join('\n');
  const payload = {
    product: productFacts(input.productContext),
    company: { ...companyFacts(company), technologies: input.technologies },
    prospect: input.person ? personFacts(input.person) : null,
    news: newsFacts(input.news),
    companyPosts: postFacts(input.companyPosts),
  };
  return {
    schemaName: COMPANY_SCHEMA_NAME,
    schema: companyAnswerSchema(input.news.length, input.companyPosts.length, hasDescription),
    system,
    user: `Write the company insights for this company.\n${untrustedBlock(payload)}`,
    check: (answer) => productNameProblems(productName, answer),
  };
}

/** The spec wants synergy points and questions tailored to the caller's product: each must name it. */
export function productNameProblems(productName: string, answer: Pick<CompanyAnswer, 'synergyPoints' | 'discoveryQuestions'>): string[] {
  const needle = productName.trim().toLocaleLowerCase();
  const problems: string[] = [];
  for (const field of ['synergyPoints', 'discoveryQuestions'] as const) {
    const missing = answer[field].flatMap((text, index) => (text.toLocaleLowerCase().includes(needle) ? [] : [index]));
    if (missing.length > 0) problems.push(`"${field}" items ${missing.join(', ')} do not name the product "${productName}"`);
  }
  return problems;
}
