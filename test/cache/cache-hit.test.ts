import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditState, providerCalls, researchCompleted, rows } from '../helpers/research-runs.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/api.md#freshness: scope and hits, end to end through the API, the worker and
// the sandboxes; the sandbox call counters show which providers were asked.

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

const COMPANY_ENDPOINTS = ['pdl.company', 'apollo.organization_enrich', 'social.company_posts', 'pdl.person_search', 'news.everything', 'site'];

describe('a cache hit', () => {
  it('calls no provider and no model, answers the same rows, and still costs one credit', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', withPosts: true, companyKnownTo: 'both' });
    const first = await researchCompleted(stack, key, { email: person.email });
    expect(first.meta.prospect).toEqual({ from_cache: false, cache_age_days: 0, source: 'sandbox' });
    expect(first.meta.company.from_cache).toBe(false);
    expect(first.meta.company.apis_called).toContain('pdl.company');

    stack.providerWorld.resetCalls();
    const modelCalls = stack.model.calls();
    const second = await researchCompleted(stack, key, { email: person.email.toUpperCase() });

    expect(providerCalls(stack)).toEqual({});
    expect(stack.model.calls()).toBe(modelCalls);
    expect(second.meta.prospect).toEqual({ from_cache: true, cache_age_days: 0, source: 'sandbox' });
    expect(second.meta.company).toEqual({ from_cache: true, apis_called: [] });
    expect(second.data).toEqual(first.data);
    expect(second.data.prospect?.summary).toBeTruthy();
    // Caching affects latency and freshness, not cost (docs/api.md#freshness).
    expect(await creditState(stack, accountId)).toEqual({ used: 2, kinds: ['consume', 'consume'] });
  });

  it('is announced by the 202 estimate of 2 seconds', async () => {
    const { key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'pdl' });
    await researchCompleted(stack, key, { email: person.email });
    const again = await stack.api.research(key, { email: person.email });
    expect(again.body.estimated_seconds).toBe(2);
    await stack.api.waitForEnd(key, again.body.research_id);
  });
});

describe('cache scope (e-mail, account, product)', () => {
  it('another key of the same account (its own product context) fetches again and keeps its own rows', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both' }, 1);
    const first = await researchCompleted(stack, key, { email: person.email });

    const other = await stack.createKey(accountId);
    stack.providerWorld.resetCalls();
    const second = await researchCompleted(stack, other.key, { email: person.email });
    expect(stack.providerWorld.calls('pdl.person')).toBe(1);
    expect(stack.providerWorld.calls('pdl.company')).toBe(1);
    expect(second.meta.prospect.from_cache).toBe(false);
    expect(second.data.prospect?.id).not.toBe(first.data.prospect?.id);
    expect(second.data.company?.id).not.toBe(first.data.company?.id);
    expect(second.data.prospect?.name).toBe(first.data.prospect?.name);
  });

  it('another account never sees the first account\'s rows, even for the same e-mail', async () => {
    const first = await stack.createCustomer('growth');
    const second = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both' }, 2);
    const mine = await researchCompleted(stack, first.key, { email: person.email });
    stack.providerWorld.resetCalls();
    const theirs = await researchCompleted(stack, second.key, { email: person.email });
    expect(stack.providerWorld.calls('pdl.person')).toBe(1);
    expect(theirs.meta.prospect.from_cache).toBe(false);
    expect(theirs.data.prospect?.id).not.toBe(mine.data.prospect?.id);
    const owners = await rows(stack, 'select distinct account_id from prospect where email = ? order by account_id', [person.email]);
    expect(owners.map((row) => row.account_id)).toEqual([first.accountId, second.accountId].sort((a, b) => a - b));
  });
});

describe('colleagues share the company row', () => {
  it('a second e-mail at the same company domain calls no company endpoint and answers the same company id', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 3);
    const company = stack.providerWorld.world.companies[person.company];
    const colleague = stack.providerWorld.world.peopleOf(company).find((other) => other.index !== person.index && other.coverage !== 'none');
    expect(colleague, 'a colleague in the sandbox world').toBeDefined();

    const first = await researchCompleted(stack, key, { email: person.email });
    stack.providerWorld.resetCalls();
    const second = await researchCompleted(stack, key, { email: colleague!.email });

    const calls = providerCalls(stack);
    for (const endpoint of COMPANY_ENDPOINTS) expect(calls[endpoint] ?? 0, endpoint).toBe(0);
    expect(calls['pdl.person']).toBe(1);
    expect(second.data.company?.id).toBe(first.data.company?.id);
    expect(second.data.company?.name).toBe(company.name);
    // One stored list; each reply leaves its own prospect out of it.
    const prospects = [person.linkedinUrl, colleague!.linkedinUrl];
    const shared = (job: typeof first) => job.data.decision_makers.filter((dm) => !prospects.includes(dm.social_url)).map((dm) => dm.id);
    expect(shared(second)).toEqual(shared(first));
    expect(second.data.decision_makers.map((dm) => dm.social_url)).not.toContain(colleague!.linkedinUrl);
    expect(second.meta.company).toEqual({ from_cache: true, apis_called: [] });
    expect(second.data.prospect?.name).toBe(colleague!.fullName);
    expect(second.data.prospect?.id).not.toBe(first.data.prospect?.id);
    const companyRows = await rows(stack, 'select count(*)::int as n from company where account_id = ? and company_key = ?', [accountId, company.domain]);
    expect(companyRows[0].n).toBe(1);
  });
});

describe('simultaneous first requests', () => {
  it('for one e-mail and its colleagues all complete and leave one row per prospect and one company', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 6);
    const company = stack.providerWorld.world.companies[person.company];
    const colleagues = stack.providerWorld.world.peopleOf(company).filter((other) => other.index !== person.index).slice(0, 2);
    const emails = [person.email, person.email, person.email, ...colleagues.map((colleague) => colleague.email)];

    const jobs = await Promise.all(emails.map((email) => researchCompleted(stack, key, { email })));

    expect(new Set(jobs.slice(0, 3).map((job) => job.data.prospect!.id)).size).toBe(1);
    expect(new Set(jobs.map((job) => job.data.company!.id)).size).toBe(1);
    const [prospects] = await rows(stack, 'select count(*)::int as n from prospect where account_id = ?', [accountId]);
    expect(prospects.n).toBe(1 + colleagues.length);
    const [companies] = await rows(stack, 'select count(*)::int as n from company where account_id = ?', [accountId]);
    expect(companies.n).toBe(1);
    const [decisionMakers] = await rows(stack, 'select count(*)::int as n from decision_maker dm join company c on c.id = dm.company_id where c.account_id = ?', [accountId]);
    const last = await researchCompleted(stack, key, { email: person.email });
    expect(decisionMakers.n).toBe(last.data.decision_makers.length);
    expect(last.data.decision_makers.length).toBeGreaterThan(0);
  });
});
