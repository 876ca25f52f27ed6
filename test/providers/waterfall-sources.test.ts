import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEnrichmentSources } from '../../integrations/providers/waterfall-sources.ts';
import { companyNews } from '../../sandbox/provider-world/posts-and-news.ts';
import type { ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { directConfig, FAST_RETRY, recordingLogger, startWorld, WORLD_NOW } from './provider-fixture.ts';

let world: ProviderWorldHandle;
beforeAll(async () => { world = await startWorld(); });
afterAll(async () => { await world.close(); });
beforeEach(() => { world.setFaults(null); world.resetCalls(); });

const sources = (env: Record<string, string> = {}, logger = recordingLogger()) =>
  createEnrichmentSources(directConfig(world, env), logger, { retry: { ...FAST_RETRY, maxAttempts: 2 } });

describe('person waterfall', () => {
  it('takes the first match and fills its gaps from the next provider', async () => {
    const person = world.world.samplePeople({ knownTo: 'both' }, 1)[0];
    const lookup = await sources().findPerson({ email: person.email });
    expect(lookup.source).toBe('pdl');
    expect(lookup.apisCalled).toEqual(['pdl.person', 'apollo.people_match']);
    // PDL has no photos; Apollo supplies one for most people.
    const withPhoto = await Promise.all(world.world.samplePeople({ knownTo: 'both' }, 8).map((p) => sources().findPerson({ email: p.email })));
    expect(withPhoto.some((l) => l.value?.photoUrl !== null)).toBe(true);
    expect(withPhoto.every((l) => l.source === 'pdl')).toBe(true);
  });

  it('falls through to Apollo for a person only Apollo knows', async () => {
    const person = world.world.samplePeople({ knownTo: 'apollo' }, 1)[0];
    const lookup = await sources().findPerson({ email: person.email });
    expect(lookup).toMatchObject({ source: 'apollo', apisCalled: ['pdl.person', 'apollo.people_match'] });
    expect(lookup.value?.fullName).toBe(person.fullName);
  });

  it('resolves to null, not an error, for a person found nowhere', async () => {
    const person = world.world.samplePeople({ knownTo: 'none' }, 1)[0];
    const lookup = await sources().findPerson({ email: person.email });
    expect(lookup).toEqual({ value: null, source: null, apisCalled: ['pdl.person', 'apollo.people_match'] });
  });

  it('still answers from Apollo when PDL is down', async () => {
    world.setFaults({ 'pdl.person': { serverErrorRate: 1 } });
    const person = world.world.samplePeople({ knownTo: 'both' }, 1)[0];
    const lookup = await sources().findPerson({ email: person.email });
    expect(lookup.source).toBe('apollo');
    expect(lookup.value?.email).toBe(person.email);
    expect(world.calls('pdl.person')).toBe(2);
  });

  it('rejects with ProviderUnavailable when every provider is down', async () => {
    world.setFaults({ 'pdl.person': { serverErrorRate: 1 }, 'apollo.people_match': { unavailableRate: 1 } });
    const error = await sources().findPerson({ email: 'someone@acme.io' }).then(
      () => { throw new Error('expected a rejection'); },
      (e: unknown) => e as Error & { type?: string },
    );
    expect(error.name).toBe('ProviderUnavailable');
    expect(error.type).toBe('ProviderUnavailable');
  });

  it('skips a provider with bad credentials to the next one, logging loudly', async () => {
    const logger = recordingLogger();
    const person = world.world.samplePeople({ knownTo: 'both' }, 1)[0];
    const lookup = await sources({ PDL_API_KEY: 'bad_key_123' }, logger).findPerson({ email: person.email });
    expect(lookup.source).toBe('apollo');
    expect(world.calls('pdl.person')).toBe(1);
    expect(logger.entries.find((e) => e.level === 'error')?.details).toMatchObject({ api: 'pdl.person', kind: 'credentials' });
    expect(JSON.stringify(logger.entries)).not.toContain('bad_key_123');
  });

  it('leaves out a provider without key or sandbox', async () => {
    const config = directConfig(world);
    const lookup = await createEnrichmentSources({ ...config, pdl: null }, recordingLogger()).findPerson({ email: world.world.samplePeople({ knownTo: 'both' }, 1)[0].email });
    expect(lookup.apisCalled).toEqual(['apollo.people_match']);
    expect(world.calls('pdl.person')).toBe(0);
  });
});

describe('company, news and decision makers', () => {
  it('merges company data from both providers and reads a clients count from the description', async () => {
    const company = world.world.sampleCompanies({ knownTo: 'both' }, 200).find((c) => c.clientsCount && c.isEnglishDescription)!;
    const lookup = await sources().findCompany({ domain: company.domain });
    expect(lookup.source).toBe('pdl');
    expect(lookup.value).toMatchObject({ name: company.name, domain: company.domain, clientsCount: company.clientsCount, website: `https://${company.domain}` });
  });

  it('finds a company only Apollo knows', async () => {
    const company = world.world.sampleCompanies({ knownTo: 'apollo' }, 1)[0];
    const lookup = await sources().findCompany({ domain: company.domain });
    expect(lookup).toMatchObject({ source: 'apollo', apisCalled: ['pdl.company', 'apollo.organization_enrich'] });
  });

  it('returns at most 3 news, none older than 12 months, newest first', async () => {
    const cutoff = '2025-06-15';
    const company = world.world.companies.find((c) => {
      const all = companyNews(world.world, c);
      return all.some((a) => a.publishedAt.toISOString() < cutoff) && all.filter((a) => a.publishedAt.toISOString() >= cutoff).length > 3;
    })!;
    const lookup = await sources().findCompanyNews({ name: company.name, domain: company.domain }, WORLD_NOW);
    expect(lookup.value).toHaveLength(3);
    expect(lookup.value!.every((a) => a.publishedOn >= cutoff)).toBe(true);
    expect(lookup.value!.map((a) => a.publishedOn)).toEqual([...lookup.value!.map((a) => a.publishedOn)].sort().reverse());
    expect(lookup.apisCalled).toEqual(['news.everything']);
  });

  it('returns VP, Director and C-level decision makers only, from PDL Person Search', async () => {
    const company = world.world.sampleCompanies({ knownTo: 'both' }, 1)[0];
    const lookup = await sources().findDecisionMakers({ name: company.name, domain: company.domain, socialUrl: null });
    expect(lookup.apisCalled).toEqual(['pdl.person_search']);
    expect(lookup.value!.length).toBeGreaterThan(0);
    const bySocial = new Map(world.world.peopleOf(company).map((p) => [p.linkedinUrl, p.seniority]));
    expect(lookup.value!.every((d) => ['c_suite', 'vp', 'director'].includes(bySocial.get(d.socialUrl)!))).toBe(true);
  });

  it('limits person posts to the 3 newest', async () => {
    const person = world.world.samplePeople({ withPosts: true }, 50).find((p) => p.postCount >= 4)!;
    const lookup = await sources().findPersonPosts({ socialUrl: person.linkedinUrl });
    expect(lookup.value).toHaveLength(3);
    expect(lookup.apisCalled).toEqual(['social.person_posts']);
  });
});
