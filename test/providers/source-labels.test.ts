import { describe, expect, it } from 'vitest';
import { listInWords, providerLabel, sourceCallLabel, SOURCE_CALL_LABELS } from '../../domain/enrichment/source-labels.ts';
import { APOLLO_APIS } from '../../integrations/providers/apollo-client.ts';
import { NEWS_APIS } from '../../integrations/providers/news-client.ts';
import { PDL_APIS } from '../../integrations/providers/pdl-client.ts';
import { SOCIAL_APIS } from '../../integrations/providers/social-posts-client.ts';
import { TECHNOLOGY_API } from '../../integrations/providers/waterfall-sources.ts';

// The job page names a job's sources as a salesperson reads them, never by the ids of `_meta`.
describe('source labels', () => {
  const ids = [...Object.values(PDL_APIS), ...Object.values(APOLLO_APIS), ...Object.values(SOCIAL_APIS), ...Object.values(NEWS_APIS), TECHNOLOGY_API];

  it('name every source call the waterfall can record, in words with no id in them', () => {
    for (const id of ids) {
      expect(SOURCE_CALL_LABELS[id], id).toBeDefined();
      expect(sourceCallLabel(id)).not.toMatch(/[._]/);
    }
    expect(sourceCallLabel('pdl.company')).toBe('People Data Labs company data');
    expect(sourceCallLabel('apollo.organization_enrich')).toBe('Apollo company data');
    expect(sourceCallLabel('social.company_posts')).toBe("the company's LinkedIn posts");
  });

  it('name the providers, and keep what they do not know rather than lose it', () => {
    expect(providerLabel('sandbox')).toBe('the local stand-ins, test data');
    expect(providerLabel('pdl')).toBe('People Data Labs');
    expect(providerLabel('openai')).toBe('OpenAI');
    expect(providerLabel('llm.example.com')).toBe('llm.example.com');
    expect(sourceCallLabel('crm.something_new')).toBe('crm.something_new');
  });

  it('list several in a sentence', () => {
    expect(listInWords([])).toBe('');
    expect(listInWords(['a'])).toBe('a');
    expect(listInWords(['a', 'b'])).toBe('a and b');
    expect(listInWords(['a', 'b', 'c'])).toBe('a, b and c');
  });
});
