import { Context } from '@temporalio/activity';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EnrichmentSources } from '../../integrations/providers/enrichment-sources.ts';
import { fairnessKeyOf } from '../../domain/research/fairness.ts';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

// Each account's provider and model calls in flight on a research worker are
// capped (here at 2 and 1): an account sending many uncached jobs at once
// never has more in flight, and its other calls wait for its own to end,
// while another account's calls pass at once. Nothing fails and nothing is
// lost while waiting: every job completes with every part it would have had.

/**
 * Every call as the caps admitted it: its job (the workflow id is the research
 * id) and when it ran. The most in flight at once per account is read
 * afterwards, once the test knows which job is whose.
 */
class CallLog {
  private readonly calls: Array<{ researchId: string; startedAt: number; endedAt: number }> = [];
  async record<T>(call: () => Promise<T>): Promise<T> {
    const researchId = Context.current().info.workflowExecution?.workflowId ?? '(none)';
    const startedAt = performance.now();
    try {
      return await call();
    } finally {
      this.calls.push({ researchId, startedAt, endedAt: performance.now() });
    }
  }

  mostAtOnce(researchIds: string[]): number {
    const ours = new Set(researchIds);
    const edges = this.calls
      .filter((call) => ours.has(call.researchId))
      .flatMap((call) => [{ at: call.startedAt, change: 1 }, { at: call.endedAt, change: -1 }])
      // An end and a start at the same instant: the end first (the place was handed on).
      .sort((a, b) => a.at - b.at || a.change - b.change);
    let now = 0;
    let most = 0;
    for (const edge of edges) {
      now += edge.change;
      most = Math.max(most, now);
    }
    return most;
  }
}

const providerCalls = new CallLog();
const modelCalls = new CallLog();
const modelAccounts = new Set<string | undefined>();
let stack: TestStack;

function countedSources(real: EnrichmentSources): EnrichmentSources {
  const counted = {} as Record<keyof EnrichmentSources, unknown>;
  for (const name of Object.keys(real) as Array<keyof EnrichmentSources>) {
    const lookup = real[name] as (...args: unknown[]) => Promise<unknown>;
    counted[name] = (...args: unknown[]) => providerCalls.record(() => lookup.apply(real, args));
  }
  return counted as unknown as EnrichmentSources;
}

beforeAll(async () => {
  stack = await startTestStack({
    callCaps: { providerCallsPerAccount: 2, modelCallsPerAccount: 1 },
    sources: countedSources,
    generator: (real) => ({
      generate: (input, turn) => {
        modelAccounts.add(input.account);
        return real.generate(input, (call) => turn!(() => modelCalls.record(call)));
      },
    }),
  });
});
afterAll(async () => {
  await stack?.stop();
});

it('holds an account to its calls in flight while another account’s jobs pass; every job completes', async () => {
  stack.providerWorld.setLatency({ '*': { meanMs: 300, jitterMs: 0 } });
  stack.model.setLatency(400);
  const big = await stack.createCustomer('growth');
  const small = await stack.createCustomer('growth');
  const people = stack.providerWorld.world.samplePeople({ knownTo: 'both', companyKnownTo: 'both' }, 10);
  expect(people).toHaveLength(10);

  const bigJobs = await Promise.all(people.slice(0, 8).map((person) => stack.api.research(big.key, { email: person.email })));
  const smallJobs = await Promise.all(people.slice(8).map((person) => stack.api.research(small.key, { email: person.email })));
  for (const accepted of [...bigJobs, ...smallJobs]) expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);

  const endedAt = new Map<string, number>();
  const ends = await Promise.all(
    [...bigJobs.map((job) => [big.key, job] as const), ...smallJobs.map((job) => [small.key, job] as const)].map(async ([key, job]) => {
      const ended = await stack.api.waitForEnd(key, job.body.research_id, 150_000);
      endedAt.set(job.body.research_id, Date.now());
      return ended.body;
    }),
  );
  // Nothing failed or went missing while waiting for a turn.
  for (const ended of ends) {
    expect(ended.status, JSON.stringify(ended)).toBe('completed');
    expect(ended.data.prospect.name).toBeTruthy();
    expect(ended.data.company.name).toBeTruthy();
    expect(ended.data.prospect.summary).toBeTruthy();
  }

  // The caps held exactly for each account: reached by the large one, never passed.
  const bigIds = bigJobs.map((job) => String(job.body.research_id));
  const smallIds = smallJobs.map((job) => String(job.body.research_id));
  expect(providerCalls.mostAtOnce(bigIds)).toBe(2);
  expect(modelCalls.mostAtOnce(bigIds)).toBe(1);
  expect(providerCalls.mostAtOnce(smallIds)).toBeLessThanOrEqual(2);
  expect(modelCalls.mostAtOnce(smallIds)).toBe(1);
  // Together the two accounts had more in flight than one cap: the small one's calls did not wait on the large one's.
  expect(providerCalls.mostAtOnce([...bigIds, ...smallIds])).toBeGreaterThan(2);
  expect(modelAccounts).toEqual(new Set([fairnessKeyOf(big.accountId), fairnessKeyOf(small.accountId)]));

  // The small account did not queue behind the large one's waiting calls: its jobs ended before the large one's last.
  const lastBig = Math.max(...bigJobs.map((job) => endedAt.get(job.body.research_id)!));
  for (const job of smallJobs) expect(endedAt.get(job.body.research_id)!).toBeLessThan(lastBig);
}, 200_000);
