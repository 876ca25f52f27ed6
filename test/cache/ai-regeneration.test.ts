import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { aiFields, creditState, providerCalls, researchCompleted, rows } from '../helpers/research-runs.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/api.md#refunds, docs/api.md#freshness: a failed AI step still completes the job (AI fields null, no
// refund); the next request regenerates only the AI part (`needsAI`), asking
// no data provider again.

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});
afterEach(() => stack.model.setFaults({ mode: 'none' }));
afterAll(() => stack?.stop());

describe.each(['down', 'serverError'] as const)('the model %s during the first job', (mode) => {
  it('completes with data and null AI fields, refunds nothing, and the next job regenerates only the AI part', async () => {
    const { accountId, key } = await stack.createCustomer('growth');
    const person = samplePerson(stack, { knownTo: 'both', withPosts: true, companyKnownTo: 'both' }, mode === 'down' ? 0 : 1);

    stack.model.setFaults({ mode });
    const failed = await researchCompleted(stack, key, { email: person.email });
    expect(stack.model.calls()).toBeGreaterThan(0);
    for (const [field, value] of Object.entries(aiFields(failed.data))) expect(value, field).toBeNull();
    expect(failed.data.prospect!.posts!.every((post) => post.summary === null)).toBe(true);
    // The data itself is there.
    expect(failed.data.prospect).toMatchObject({ name: person.fullName, email: person.email });
    expect(failed.data.company!.name).toBeTruthy();
    expect(failed.data.decision_makers.length).toBeGreaterThan(0);
    expect(failed.meta.ai).toEqual({ source: null, generated: false });
    expect(await creditState(stack, accountId)).toEqual({ used: 1, kinds: ['consume'] });
    const [stored] = await rows(stack, 'select insights, insights_generated_at from prospect where id = ?', [failed.data.prospect!.id]);
    expect(stored).toEqual({ insights: null, insights_generated_at: null });

    stack.model.setFaults({ mode: 'none' });
    stack.providerWorld.resetCalls();
    const modelCalls = stack.model.calls();
    const regenerated = await researchCompleted(stack, key, { email: person.email });

    expect(providerCalls(stack)).toEqual({});
    expect(stack.model.calls()).toBeGreaterThan(modelCalls);
    for (const [field, value] of Object.entries(aiFields(regenerated.data))) expect(value, field).not.toBeNull();
    expect(regenerated.data.prospect!.opening_talk).toHaveLength(3);
    expect(regenerated.data.company!.synergy_points).toHaveLength(4);
    expect(regenerated.data.company!.discovery_questions).toHaveLength(3);
    expect(regenerated.data.prospect!.posts!.every((post) => typeof post.summary === 'string')).toBe(true);
    expect(regenerated.meta.prospect).toEqual({ from_cache: true, cache_age_days: 0, source: 'sandbox' });
    expect(regenerated.meta.company).toEqual({ from_cache: true, apis_called: [] });
    expect(regenerated.meta.ai.generated).toBe(true);
    // Same rows, same data: only the AI part was written.
    expect(regenerated.data.prospect!.id).toBe(failed.data.prospect!.id);
    expect(regenerated.data.company!.id).toBe(failed.data.company!.id);
    expect(regenerated.data.prospect!.name).toBe(failed.data.prospect!.name);
    expect(regenerated.data.decision_makers).toEqual(failed.data.decision_makers);

    // And now it is a plain cache hit: nothing is asked of anyone.
    stack.providerWorld.resetCalls();
    const model = stack.model.calls();
    const hit = await researchCompleted(stack, key, { email: person.email });
    expect([providerCalls(stack), stack.model.calls() - model]).toEqual([{}, 0]);
    expect(hit.data).toEqual(regenerated.data);
    expect(await creditState(stack, accountId)).toEqual({ used: 3, kinds: ['consume', 'consume', 'consume'] });
  });
});
