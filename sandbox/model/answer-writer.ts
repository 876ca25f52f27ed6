import type { Language } from '../../domain/research/languages.ts';
import { PHRASEBOOKS, type WriterFacts } from './phrasebooks/index.ts';
import type { FieldWriter } from './schema-filler.ts';
import { descriptionInEnglish, titleInEnglish } from './translations.ts';
import { productContextWriter } from './product-context-writer.ts';

type Data = Record<string, any>;

/** Writes each field of an insights answer from the facts in the request's data block. */
export function createFieldWriter(schemaName: string, data: Data, language: Language): FieldWriter {
  if (schemaName === 'product_context') return productContextWriter(data);
  const book = PHRASEBOOKS[language];
  const facts = writerFacts(data);
  const posts: Data[] = Array.isArray(data.posts) ? data.posts : [];
  const companyPosts: Data[] = Array.isArray(data.companyPosts) ? data.companyPosts : [];
  const news: Data[] = Array.isArray(data.news) ? data.news : [];
  const fields: Record<string, (index: number) => string | null> = {
    titleEnglish: () => (typeof data.person?.title === 'string' ? titleInEnglish(data.person.title) : null),
    summary: () => book.summary(facts),
    openingTalk: (i) => book.openingTalk(i, facts, topicOf(posts[i])),
    postSummaries: (i) =>
      schemaName === 'company_insights'
        ? book.companyPostSummary(facts.company, topicOf(companyPosts[i]) ?? facts.company)
        : book.postSummary(facts.person, topicOf(posts[i]) ?? facts.title),
    descriptionEnglish: () => descriptionInEnglish(data.company ?? {}),
    problems: (i) => book.problems(facts)[i % 4],
    services: (i) => book.services(facts)[i % 4],
    icp: (i) => book.icp(facts)[i % 4],
    synergyPoints: (i) => book.synergy(i, facts),
    discoveryQuestions: (i) => book.discovery(i, facts),
    insights: (i) => book.insights(facts)[i % 4],
    newsSummaries: (i) => book.newsSummary(facts.company, String(news[i]?.title ?? facts.company)),
  };
  return {
    text: (field, index) => (fields[field] ? fields[field](index) : book.generic(field, index)),
    count: () => 3,
  };
}

function writerFacts(data: Data): WriterFacts {
  const person = data.person ?? data.prospect ?? {};
  const personName = typeof person.fullName === 'string' ? person.fullName : 'The prospect';
  const features: string[] = Array.isArray(data.product?.keyFeatures) ? data.product.keyFeatures.filter((f: unknown) => typeof f === 'string') : [];
  const product = typeof data.product?.name === 'string' ? data.product.name : 'the product';
  return {
    person: personName,
    firstName: personName.split(/\s+/)[0],
    // A real model asked for titleEnglish names the role in English elsewhere too.
    title: typeof person.title === 'string' ? titleInEnglish(person.title) : 'professional',
    company: String(data.company?.name ?? person.companyName ?? 'the company'),
    industry: typeof data.company?.industry === 'string' ? data.company.industry : null,
    product,
    feature: (index) => (features.length > 0 ? features[index % features.length] : product),
  };
}

/** A few opening words of a post: enough to name its topic, and the post is never obeyed. */
function topicOf(post: Data | undefined): string | null {
  if (typeof post?.text !== 'string') return null;
  const firstSentence = post.text.replace(/https?:\/\/\S+/g, '').split(/(?<=[.!?])\s/)[0] ?? '';
  const words = firstSentence.replace(/["“”„«»]/g, '').trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  return words.length > 6 ? `${words.slice(0, 6).join(' ')}…` : words.join(' ').replace(/[.!?]$/, '');
}
