import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { creditState, providerCalls, researchCompleted } from '../helpers/research-runs.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/architecture.md#the-research-path: optional parts degrade to null/[] instead of failing the job; a
// part that could not be fetched is not cached, so the next request tries again.

let stack: TestStack;
const previousTimeout = process.env.PROVIDER_TIMEOUT_MS;

beforeAll(async () => {
  // Held replies ("timeouts") give up after 1.5 s instead of 10 s, to keep the file quick.
  process.env.PROVIDER_TIMEOUT_MS = '1500';
  stack = await startTestStack();
});
afterEach(() => stack.providerWorld.setFaults(null));
afterAll(async () => {
  if (previousTimeout === undefined) delete process.env.PROVIDER_TIMEOUT_MS;
  else process.env.PROVIDER_TIMEOUT_MS = previousTimeout;
  await stack?.stop();
});

describe('30 % of provider calls failing', () => {
  it('every job still completes, with no refund, and whatever could not be fetched is null or []', async () => {
    const { accountId, key } = await stack.createCustomer('scale');
    const people = stack.providerWorld.world.samplePeople({ knownTo: 'both', companyKnownTo: 'both' }, 6);
    stack.providerWorld.setFaults({ '*': { serverErrorRate: 0.2, unavailableRate: 0.05, timeoutRate: 0.05 } });

    const jobs = await Promise.all(people.map((person) => researchCompleted(stack, key, { email: person.email })));

    const calls = stack.providerWorld.callsSnapshot();
    expect(Object.values(calls).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(people.length * 4);
    for (const [index, job] of jobs.entries()) {
      const person = people[index];
      expect(job.data.prospect!.email).toBe(person.email);
      // Each part is either the right data or absent; never someone else's, never an error.
      expect([person.fullName, null]).toContain(job.data.prospect!.name);
      expect([stack.providerWorld.world.companies[person.company].name, undefined]).toContain(job.data.company?.name);
      expect(Array.isArray(job.data.decision_makers)).toBe(true);
    }
    expect(await creditState(stack, accountId)).toEqual({ used: people.length, kinds: people.map(() => 'consume') });
  });
});

describe('a part whose providers are all down', () => {
  it('leaves decision makers [] and company posts null, completes, and is fetched at the next request', async () => {
    const { key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 10);
    stack.providerWorld.setFaults({ 'pdl.person_search': { unavailableRate: 1 }, 'social.company_posts': { serverErrorRate: 1 } });
    const degraded = await researchCompleted(stack, key, { email: person.email });
    expect(degraded.data.decision_makers).toEqual([]);
    expect(degraded.data.company!.posts).toBeNull();
    expect(degraded.data.company!.name).toBe(stack.providerWorld.world.companies[person.company].name);
    expect(degraded.data.prospect!.summary).toBeTruthy();

    stack.providerWorld.setFaults(null);
    stack.providerWorld.resetCalls();
    const healed = await researchCompleted(stack, key, { email: person.email });
    expect(providerCalls(stack)).toEqual({ 'pdl.person_search': 1, 'social.company_posts': 1 });
    expect(healed.data.decision_makers.length).toBeGreaterThan(0);
    expect(healed.data.company!.posts).not.toBeNull();
    expect(healed.data.company!.id).toBe(degraded.data.company!.id);
  });

  it('a person no provider could be asked about completes with the company, and is looked up again next time', async () => {
    const { key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 11);
    stack.providerWorld.setFaults({ 'pdl.person': { serverErrorRate: 1 }, 'apollo.people_match': { unavailableRate: 1 } });
    const degraded = await researchCompleted(stack, key, { email: person.email });
    expect(degraded.data.prospect!.name).toBeNull();
    expect(degraded.data.company!.name).toBe(stack.providerWorld.world.companies[person.company].name);

    stack.providerWorld.setFaults(null);
    stack.providerWorld.resetCalls();
    const healed = await researchCompleted(stack, key, { email: person.email });
    // An outage is not "not found": it is not cached.
    expect(stack.providerWorld.calls('pdl.person')).toBe(1);
    expect(healed.data.prospect!.name).toBe(person.fullName);
    expect(healed.meta.prospect.from_cache).toBe(false);
    expect(healed.data.prospect!.id).toBe(degraded.data.prospect!.id);
  });

  it('an outage at the only provider that knows the person is not cached as "not found"', async () => {
    const { key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'pdl', companyKnownTo: 'pdl' });
    stack.providerWorld.setFaults({ 'pdl.person': { unavailableRate: 1 }, 'pdl.company': { serverErrorRate: 1 } });
    const degraded = await researchCompleted(stack, key, { email: person.email });
    expect(degraded.data.prospect!.name).toBeNull();
    expect(degraded.data.company).toBeNull();

    stack.providerWorld.setFaults(null);
    stack.providerWorld.resetCalls();
    const healed = await researchCompleted(stack, key, { email: person.email });
    expect(stack.providerWorld.calls('pdl.person')).toBe(1);
    expect(stack.providerWorld.calls('pdl.company')).toBe(1);
    expect(healed.data.prospect!.name).toBe(person.fullName);
    expect(healed.data.company!.name).toBe(stack.providerWorld.world.companies[person.company].name);
  });
});
