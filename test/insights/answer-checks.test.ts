import { describe, expect, it } from 'vitest';
import { placeholderProblems } from '../../integrations/ai/product-context.ts';
import { prospectRequest, sourceTitleProblems } from '../../integrations/ai/prospect-insights-prompt.ts';
import { productContextWriter } from '../../sandbox/model/product-context-writer.ts';
import { createFieldWriter } from '../../sandbox/model/answer-writer.ts';
import type { InsightsInput } from '../../domain/research/insights.ts';
import type { PersonProfile } from '../../domain/enrichment/enrichment.ts';

const antoine: PersonProfile = {
  fullName: 'Antoine Laurent', title: 'Directeur Commercial', companyName: 'Zenith Medical', companyDomain: 'zenithmedical.fr',
  companySocialUrl: null, email: 'antoine.laurent@zenithmedical.fr', socialUrl: null, photoUrl: null, lastRoleStart: null, location: null,
};

describe('AI texts name the role by the English title the reply shows', () => {
  const answer = { titleEnglish: 'Sales Director', summary: 'Antoine Laurent is Directeur Commercial at Zenith Medical.', openingTalk: ['a', 'b', 'How is your role as directeur commercial changing?'], postSummaries: [] };

  it('rejects a summary or opening talk that repeats the source-language title', () => {
    expect(sourceTitleProblems(answer, 'Directeur Commercial')).toEqual([
      expect.stringContaining('summary'), expect.stringContaining('openingTalk[2]'),
    ]);
    expect(sourceTitleProblems({ ...answer, summary: 'Antoine Laurent is Sales Director at Zenith Medical.', openingTalk: ['a', 'b', 'c'] }, 'Directeur Commercial')).toEqual([]);
    // An English source title is the title the reply shows: nothing to reject.
    expect(sourceTitleProblems({ ...answer, titleEnglish: 'VP of Sales', summary: 'She is VP of Sales.' }, 'VP of Sales')).toEqual([]);
  });

  it('is the check of the prospect request, and the prompt says so', () => {
    const input = { language: 'en', productContext: { name: 'P', description: 'd', keyFeatures: ['f'], targetCustomers: ['t'], productUrl: null }, personPosts: [] } as unknown as InsightsInput;
    const request = prospectRequest(input, antoine);
    expect(request.check?.(answer)).toHaveLength(2);
    expect(request.system).toContain('titleEnglish');
  });

  it('the model stand-in writes the summary with the English title', () => {
    const writer = createFieldWriter('prospect_insights', { person: { fullName: 'Antoine Laurent', title: 'Directeur Commercial' }, company: { name: 'Zenith Medical' } }, 'en');
    const summary = writer.text('summary', 0)!;
    expect(summary).not.toContain('Directeur Commercial');
    expect(summary).toContain(writer.text('titleEnglish', 0)!);
  });
});

describe('product context extraction', () => {
  it('rejects placeholder-like answers', () => {
    const base = { name: 'Fleetwise', description: 'Route planning for delivery fleets.', keyFeatures: ['Live vehicle tracking'], targetCustomers: ['Couriers'] };
    expect(placeholderProblems(base)).toEqual([]);
    for (const placeholder of ['keyFeatures 1', 'Feature 2', 'N/A', 'lorem ipsum dolor', 'TBD', 'item']) {
      expect(placeholderProblems({ ...base, keyFeatures: ['Live vehicle tracking', placeholder] }), placeholder).toHaveLength(1);
    }
    expect(placeholderProblems({ ...base, targetCustomers: ['targetCustomers 1'] })).toHaveLength(1);
  });

  it('the model stand-in reads features from a page without a feature list, never a placeholder', () => {
    const writer = productContextWriter({
      page: { siteName: 'Fleetwise', description: 'Fleetwise plans delivery routes, tracks vehicles live and gives customers accurate arrival times.', headings: ['Deliver more'], lists: [], paragraphs: [] },
    });
    const features = Array.from({ length: writer.count('keyFeatures') }, (_, i) => writer.text('keyFeatures', i)!);
    expect(features).toEqual(['Plans delivery routes', 'Tracks vehicles live', 'Gives customers accurate arrival times']);
    const answer = { name: writer.text('name', 0)!, description: writer.text('description', 0)!, keyFeatures: features, targetCustomers: [writer.text('targetCustomers', 0)!] };
    expect(placeholderProblems(answer)).toEqual([]);
  });
});
