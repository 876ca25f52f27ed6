import type { Logger } from 'pino';
import { z } from 'zod';
import type { ProductContext } from '../../domain/research/product-context.ts';
import type { AiClient } from './ai-client.ts';
import { zText } from './answer-repair.ts';
import type { FetchPage } from '../web/page-fetcher.ts';
import { readPageMetadata } from './page-metadata.ts';
import { safetyAndLanguageRules, untrustedBlock } from './untrusted-data.ts';

export const PRODUCT_CONTEXT_SCHEMA_NAME = 'product_context';
const MAX_FEATURES = 8;
const MAX_CUSTOMERS = 5;

const ZProductContextAnswer = z.object({
  name: zText(),
  description: zText(),
  keyFeatures: z.array(zText()).min(1).max(MAX_FEATURES),
  targetCustomers: z.array(zText()).min(1).max(MAX_CUSTOMERS),
});

// Placeholder shapes a model (or a schema filler) writes when the page gave it
// nothing: "keyFeatures 1", "Feature 2", "item", "N/A", "lorem ipsum", "TBD".
const PLACEHOLDER = /^(?:(?:key\s*)?features?|target\s*customers?|customers?|items?|points?|values?|strings?|texts?|examples?|names?|descriptions?|products?|placeholder|todo|tbd|n\/?a|none|unknown|null|undefined|lorem ipsum.*|\.\.\.|…)\s*[#:.-]?\s*\d*\.?$/i;

/** Items that say nothing about the product; the model is asked again, naming them. */
export function placeholderProblems(answer: z.output<typeof ZProductContextAnswer>): string[] {
  const fields: [string, string[]][] = [['name', [answer.name]], ['description', [answer.description]], ['keyFeatures', answer.keyFeatures], ['targetCustomers', answer.targetCustomers]];
  return fields.flatMap(([field, values]) =>
    values
      .filter((value) => PLACEHOLDER.test(value.trim()) || value.trim().toLowerCase().replace(/\s+\d+$/, '') === field.toLowerCase())
      .map((value) => `${field} holds the placeholder "${value}"; write what the page says, or leave the list to its real items`),
  );
}

export interface ProductContextDeps {
  fetchPage: FetchPage;
  ai: AiClient;
  logger: Logger;
}

/**
 * Drafts a product context (docs/api.md#authentication: name, description, key features, target
 * customers) from the product's own web page, for the dashboard to prefill.
 * Rejects with PageFetchRefused / PageFetchFailed when the page cannot be read
 * and with AiUnavailable when the model cannot answer.
 */
export async function extractProductContext(url: string, deps: ProductContextDeps): Promise<ProductContext> {
  const page = await deps.fetchPage(url);
  const metadata = readPageMetadata(page.body);
  const system = [
    'You read a software product\'s web page and write a short product context that a sales assistant will use.',
    safetyAndLanguageRules('en', []),
    'Fields:',
    '- name: the product\'s name as the page gives it (not the page title, not a slogan).',
    '- description: what the product does and for whom, in one or two sentences.',
    `- keyFeatures: 1 to ${MAX_FEATURES} key features, each a short phrase taken from the page.`,
    `- targetCustomers: 1 to ${MAX_CUSTOMERS} kinds of customers the product is for, as the page states or clearly implies.`,
  ].join('\n');
  const answer = await deps.ai.complete({
    schemaName: PRODUCT_CONTEXT_SCHEMA_NAME,
    schema: ZProductContextAnswer,
    system,
    user: `Write the product context for this page.\n${untrustedBlock({ url: page.url, page: metadata })}`,
    isFast: true,
    check: placeholderProblems,
  });
  deps.logger.info({ url: page.url, usage: answer.usage, model: answer.model }, 'product context extracted');
  return { ...answer.value, productUrl: page.url };
}
