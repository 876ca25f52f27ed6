import { z } from 'zod';
import type { InsightsInput, ProspectInsights } from '../../domain/research/insights.ts';
import { OPENING_TALK_COUNT } from '../../domain/research/insights.ts';
import type { PersonProfile } from '../../domain/enrichment/enrichment.ts';
import type { StructuredRequest } from './ai-client.ts';
import { zText, zTexts } from './answer-repair.ts';
import { personFacts, postFacts, productFacts } from './insights-payload.ts';
import { safetyAndLanguageRules, untrustedBlock } from './untrusted-data.ts';

export const PROSPECT_SCHEMA_NAME = 'prospect_insights';

/** The model's answer: the prospect insights, with the translation only when there was a title. */
export type ProspectAnswer = Omit<ProspectInsights, 'titleEnglish'> & { titleEnglish?: string };

/** Exact list sizes for this job: 3 opening talks, one summary per post. */
export function prospectAnswerSchema(postCount: number, hasTitle: boolean): z.ZodType<ProspectAnswer> {
  const shape = {
    ...(hasTitle ? { titleEnglish: zText() } : {}),
    summary: zText(),
    openingTalk: zTexts(OPENING_TALK_COUNT),
    postSummaries: zTexts(postCount),
  };
  return z.object(shape) as unknown as z.ZodType<ProspectAnswer>;
}

export function prospectRequest(input: InsightsInput, person: PersonProfile): StructuredRequest<ProspectAnswer> {
  const posts = input.personPosts;
  const hasTitle = person.title !== null && person.title.trim() !== '';
  const fields = [
    ...(hasTitle ? ['- titleEnglish: the person\'s job title (payload "person.title") in English.'] : []),
    `- summary: a professional summary of the person in 2 to 3 sentences.${hasTitle ? ' Wherever a text names the person\'s role, it uses titleEnglish (translated into the output language if that is not English), never the title as the payload spells it in another language.' : ''}`,
    `- openingTalk: exactly ${OPENING_TALK_COUNT} conversation starters for the seller. Each refers to a specific recent post of the person (payload "posts") by its topic; when there are fewer posts, use the person's role and company. Where it fits naturally, connect to the seller's product (payload "product").`,
    `- postSummaries: exactly ${posts.length} items, a one-sentence summary of each post in payload "posts", in the same order.`,
  ];
  const system = [
    'You are a B2B sales researcher preparing a seller for a first conversation with a prospect.',
    safetyAndLanguageRules(input.language, hasTitle ? ['titleEnglish'] : []),
    'Fields:',
    ...fields,
  ].join('\n');
  const payload = {
    product: productFacts(input.productContext),
    person: personFacts(person),
    company: input.company ? { name: input.company.name, industry: input.company.industry } : null,
    posts: postFacts(posts),
  };
  return {
    schemaName: PROSPECT_SCHEMA_NAME,
    schema: prospectAnswerSchema(posts.length, hasTitle),
    system,
    user: `Write the prospect insights for this person.\n${untrustedBlock(payload)}`,
    check: (answer) => sourceTitleProblems(answer, person.title),
  };
}

/**
 * The reply shows `title` in English (docs/decisions.md#data-and-ai); a summary that calls the
 * same person "Directeur Commercial" beside it reads as two people. When the
 * source title is not the English one, no text may repeat it verbatim.
 */
export function sourceTitleProblems(answer: ProspectAnswer, sourceTitle: string | null): string[] {
  const source = sourceTitle?.trim().toLocaleLowerCase();
  const english = answer.titleEnglish?.trim().toLocaleLowerCase();
  if (!source || !english || source === english) return [];
  const texts = [['summary', answer.summary], ...answer.openingTalk.map((text, i) => [`openingTalk[${i}]`, text])];
  return texts
    .filter(([, text]) => text.toLocaleLowerCase().includes(source))
    .map(([field]) => `${field} names the role as "${sourceTitle}"; use the English title "${answer.titleEnglish}" instead`);
}
