import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditState, providerCalls, researchCompleted } from '../helpers/research-runs.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// Where the company comes from (docs/api.md#the-result, docs/api.md#post-research): the e-mail
// domain, the caller's hints, or the person once found; a prospect found
// nowhere still gets its company; free-mail domains are never a company.

let stack: TestStack;
let key: string;
let accountId: number;

beforeAll(async () => {
  stack = await startTestStack();
  ({ key, accountId } = await stack.createCustomer('growth'));
});
afterAll(() => stack?.stop());

describe('a prospect found nowhere', () => {
  it('completes with company data from the e-mail domain, prospect parts null, and no refund', async () => {
    const company = stack.providerWorld.world.sampleCompanies({ knownTo: 'both' }, 3)[2];
    const used = (await creditState(stack, accountId)).used;
    const done = await researchCompleted(stack, key, { email: stack.providerWorld.world.unmatchedEmail(company) });
    expect(done.data.prospect).toMatchObject({ name: null, title: null, summary: null, opening_talk: null, social_url: null });
    expect(done.data.company).toMatchObject({ name: company.name, industry: company.industry });
    expect(done.data.company!.synergy_points).toHaveLength(4);
    expect(done.data.decision_makers.length).toBeGreaterThan(0);
    expect(done.meta.prospect).toMatchObject({ from_cache: false, source: null });
    expect((await creditState(stack, accountId)).used).toBe(used + 1);
  });

  it('a person no provider knows, at a company they do know, also completes with the company', async () => {
    const person = samplePerson(stack, { knownTo: 'none', companyKnownTo: 'both' });
    const done = await researchCompleted(stack, key, { email: person.email });
    expect(done.data.prospect!.name).toBeNull();
    expect(done.data.company!.name).toBe(stack.providerWorld.world.companies[person.company].name);
  });

  it('is remembered as not found: the next request within 30 days asks no person provider again', async () => {
    const person = samplePerson(stack, { knownTo: 'none', companyKnownTo: 'both' }, 1);
    await researchCompleted(stack, key, { email: person.email });
    stack.providerWorld.resetCalls();
    const again = await researchCompleted(stack, key, { email: person.email });
    expect(providerCalls(stack)).toEqual({});
    expect(again.meta.prospect.from_cache).toBe(true);
  });
});

describe('free-mail prospects', () => {
  it('get no company without hints, and never one named after the mail provider', async () => {
    stack.providerWorld.resetCalls();
    const done = await researchCompleted(stack, key, { email: 'someone.unknown@gmail.com' });
    expect(done.data.company).toBeNull();
    expect(stack.providerWorld.calls('pdl.company')).toBe(0);
  });

  it('get their company from the company_name hint', async () => {
    const company = stack.providerWorld.world.sampleCompanies({ knownTo: 'both' }, 5)[4];
    stack.providerWorld.resetCalls();
    const done = await researchCompleted(stack, key, { email: 'jan.kowalski.private@gmail.com', company_name: company.name });
    expect(done.data.company).toMatchObject({ name: company.name });
    expect(done.data.company!.website).toContain(company.domain);
  });

  it('get their company from the company_social_url hint', async () => {
    const company = stack.providerWorld.world.sampleCompanies({ knownTo: 'both' }, 6)[5];
    const done = await researchCompleted(stack, key, { email: 'ana.private@outlook.com', company_social_url: company.linkedinUrl });
    expect(done.data.company).toMatchObject({ name: company.name });
  });
});

describe('company_social_url', () => {
  it('overrides the company detected from the e-mail domain', async () => {
    const [atDomain, overriding] = stack.providerWorld.world.sampleCompanies({ knownTo: 'both' }, 9).slice(7);
    const done = await researchCompleted(stack, key, {
      email: stack.providerWorld.world.unmatchedEmail(atDomain),
      company_social_url: overriding.linkedinUrl,
    });
    expect(done.data.company!.name).toBe(overriding.name);
    expect(done.data.company!.social_url).toBe(overriding.linkedinUrl);
  });

  it('overrides the company of a found person', async () => {
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 4);
    const overriding = stack.providerWorld.world.sampleCompanies({ knownTo: 'pdl' }, 1)[0];
    expect(overriding.index).not.toBe(person.company);
    const done = await researchCompleted(stack, key, { email: person.email, company_social_url: overriding.linkedinUrl });
    expect(done.data.prospect!.name).toBe(person.fullName);
    expect(done.data.company!.name).toBe(overriding.name);
  });
});

describe('a person whose company no company endpoint knows (anthony.young@meridianestates.ai)', () => {
  it('completes with the employer the person record names, and that company’s decision makers', async () => {
    const world = stack.providerWorld.world;
    // Known to both person providers; PDL knows other leaders of the company, no company endpoint knows it.
    const person = world.samplePeople({ knownTo: 'both', companyKnownTo: 'none' }, 400).find((candidate) =>
      world.peopleOf(world.companies[candidate.company]).some((colleague) =>
        colleague !== candidate && ['c_suite', 'vp', 'director'].includes(colleague.seniority) && (colleague.coverage === 'pdl' || colleague.coverage === 'both')))!;
    const company = world.companies[person.company];
    const done = await researchCompleted(stack, key, { email: person.email });
    expect(done.data.prospect!.name).toBe(person.fullName);
    expect(done.data.company).toMatchObject({ name: company.name, website: `https://${company.domain}` });
    expect(done.data.decision_makers.length).toBeGreaterThan(0);
    expect(done.data.decision_makers.every((dm) => dm.company_name === company.name)).toBe(true);
  });
});

describe('the prospect among their company’s leaders', () => {
  it('is not listed among their own company’s decision makers', async () => {
    const world = stack.providerWorld.world;
    const leader = world.samplePeople({ knownTo: 'both', companyKnownTo: 'both', seniority: 'vp' }, 50)
      .find((candidate) => world.peopleOf(world.companies[candidate.company]).filter((p) => ['c_suite', 'vp', 'director'].includes(p.seniority) && p.coverage !== 'apollo' && p.coverage !== 'none').length >= 2)!;
    const done = await researchCompleted(stack, key, { email: leader.email });
    expect(done.data.decision_makers.length).toBeGreaterThan(0);
    expect(done.data.decision_makers.map((dm) => dm.social_url)).not.toContain(leader.linkedinUrl);
    expect(done.data.decision_makers.map((dm) => dm.full_name)).not.toContain(leader.fullName);
  });
});

describe('_meta.prospect.reason', () => {
  it('says why an address that names no person completed with nulls', async () => {
    const company = stack.providerWorld.world.sampleCompanies({ knownTo: 'both' }, 12)[11];
    const cases: [string, string][] = [
      ['someone.else@gmail.com', 'free_mail'],
      ['throwaway@mailinator.com', 'disposable'],
      [`info@${company.domain}`, 'role_address'],
      [`zed.quarterman@${company.domain}`, 'not_found'],
    ];
    for (const [email, reason] of cases) {
      const done = await researchCompleted(stack, key, { email });
      expect(done.data.prospect!.name, email).toBeNull();
      expect(done.meta.prospect.reason, email).toBe(reason);
    }
    const known = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 20);
    expect((await researchCompleted(stack, key, { email: known.email })).meta.prospect.reason).toBeUndefined();
  });
});
