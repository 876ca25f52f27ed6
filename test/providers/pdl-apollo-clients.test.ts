import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApolloClient } from '../../integrations/providers/apollo-client.ts';
import { ProviderError } from '../../integrations/providers/http.ts';
import { createPdlClient } from '../../integrations/providers/pdl-client.ts';
import type { ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { httpDeps, recordingLogger, startWorld } from './provider-fixture.ts';

let world: ProviderWorldHandle;
beforeAll(async () => { world = await startWorld(); });
afterAll(async () => { await world.close(); });
beforeEach(() => { world.setFaults(null); world.resetCalls(); });

const pdl = (apiKey = 'k') => createPdlClient({ baseUrl: `${world.url}/pdl`, apiKey, source: 'pdl' }, httpDeps(recordingLogger()));
const apollo = (apiKey = 'k') => createApolloClient({ baseUrl: `${world.url}/apollo`, apiKey, source: 'apollo' }, httpDeps(recordingLogger()));

describe('PDL client', () => {
  it('maps a matched person into the domain shape', async () => {
    const person = world.world.samplePeople({ knownTo: 'pdl' }, 1)[0];
    const company = world.world.companies[person.company];
    const profile = await pdl().findPerson({ email: person.email });
    expect(profile).toMatchObject({
      email: person.email,
      companyDomain: company.domain,
      socialUrl: person.linkedinUrl,
      companySocialUrl: company.linkedinUrl,
      photoUrl: null,
    });
    expect(profile?.fullName.toLowerCase()).toBe(person.fullName.toLowerCase());
    expect(profile?.lastRoleStart ?? '2000-01-01').toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('returns null when PDL has no match (404)', async () => {
    const onlyApollo = world.world.samplePeople({ knownTo: 'apollo' }, 1)[0];
    expect(await pdl().findPerson({ email: onlyApollo.email })).toBeNull();
    expect(await pdl().findPerson({ email: world.world.unmatchedEmail(world.world.companies[0]) })).toBeNull();
    expect(world.calls('pdl.person')).toBe(2);
  });

  it('finds a company by domain, with the company’s own website (not the stand-in’s address)', async () => {
    const company = world.world.sampleCompanies({ knownTo: 'pdl' }, 1)[0];
    const profile = await pdl().findCompany({ domain: company.domain });
    expect(profile).toMatchObject({ name: company.name, domain: company.domain, industry: company.industry, employees: company.employeeRange, website: `https://${company.domain}` });
  });

  it('lists exactly the VP, Director and C-level people PDL knows as decision makers, with profile URLs', async () => {
    const company = world.world.sampleCompanies({ knownTo: 'both' }, 1)[0];
    const leaders = world.world.peopleOf(company).filter((p) => ['c_suite', 'vp', 'director'].includes(p.seniority) && (p.coverage === 'pdl' || p.coverage === 'both'));
    expect(leaders.length).toBeGreaterThan(0);
    const found = await pdl().findDecisionMakers({ name: company.name, domain: company.domain });
    expect(found?.map((d) => d.socialUrl).sort()).toEqual(leaders.map((p) => p.linkedinUrl).sort());
    expect(found?.every((d) => d.companyName === company.name && d.positionTitle.length > 0)).toBe(true);
    expect(world.calls('pdl.person_search')).toBe(1);
  });

  it('answers [] for a company where PDL knows no leader (its documented 404)', async () => {
    expect(await pdl().findDecisionMakers({ name: 'Nowhere', domain: 'no-such-company.example' })).toEqual([]);
  });
});

describe('Apollo client', () => {
  it('maps a matched person, including photo and employment start', async () => {
    const person = world.world.samplePeople({ knownTo: 'apollo' }, 1)[0];
    const profile = await apollo().findPerson({ email: person.email });
    expect(profile).toMatchObject({ fullName: person.fullName, title: person.title, email: person.email, socialUrl: person.linkedinUrl });
  });

  it('returns null for `{person: null}`', async () => {
    const onlyPdl = world.world.samplePeople({ knownTo: 'pdl' }, 1)[0];
    expect(await apollo().findPerson({ email: onlyPdl.email })).toBeNull();
    expect(world.calls('apollo.people_match')).toBe(1);
  });

  it('enriches an organization and returns null for an unknown one', async () => {
    const company = world.world.sampleCompanies({ knownTo: 'apollo' }, 1)[0];
    expect(await apollo().findCompany({ domain: company.domain })).toMatchObject({ name: company.name, domain: company.domain, employees: String(company.employeeCount) });
    const unknown = world.world.sampleCompanies({ knownTo: 'pdl' }, 1)[0];
    expect(await apollo().findCompany({ domain: unknown.domain })).toBeNull();
  });

  it('reports an exhausted plan as quota and bad keys as credentials', async () => {
    const quota = await apollo('exhausted_1').findPerson({ email: 'a@b.io' }).catch((e: unknown) => e);
    expect(quota).toBeInstanceOf(ProviderError);
    expect((quota as ProviderError).kind).toBe('quota');
    const bad = await apollo('bad_1').findPerson({ email: 'a@b.io' }).catch((e: unknown) => e);
    expect((bad as ProviderError).kind).toBe('credentials');
    expect(world.calls('apollo.people_match')).toBe(2);
  });
});
