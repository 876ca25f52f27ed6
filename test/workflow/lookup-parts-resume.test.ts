import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

// Every enrichment part runs inside one `lookupParts` activity. A
// worker killed in the middle of it loses nothing it cannot redo: the next
// attempt (on another worker) takes the parts the first one had reported in
// its heartbeat details and asks the providers only for the rest; the job
// completes once, with one credit.

let stack: TestStack;
let worker: ChildProcess | null = null;

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
});
afterAll(async () => {
  worker?.kill('SIGKILL');
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function activityAttempts(researchId: string): Promise<Array<{ type: string; attempt: number }>> {
  const history = await stack.temporal.workflow.getHandle(researchId).fetchHistory();
  const types = new Map<string, string>();
  const attempts: Array<{ type: string; attempt: number }> = [];
  for (const event of history.events ?? []) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(event.eventId), scheduled.activityType?.name ?? '?');
    const started = event.activityTaskStartedEventAttributes;
    if (started) attempts.push({ type: types.get(String(started.scheduledEventId)) ?? '?', attempt: started.attempt ?? 0 });
  }
  return attempts;
}

it('a worker killed mid-lookupParts: the next attempt keeps the person found before, refetches only the rest, one credit', async () => {
  const { accountId, key } = await stack.createCustomer('growth');
  // The person's providers answer at once, every other part slowly: the kill lands after the person was reported.
  stack.providerWorld.setLatency({ '*': { meanMs: 3_000 }, 'pdl.person': { meanMs: 50 }, 'apollo.people_match': { meanMs: 50 } });
  const person = samplePerson(stack, { knownTo: 'both', companyKnownTo: 'both' }, 11);
  worker = startWorkerProcess(stack);
  stack.providerWorld.resetCalls();
  const accepted = await stack.api.research(key, { email: person.email });
  expect(accepted.status).toBe(202);
  const researchId = accepted.body.research_id;

  const deadline = Date.now() + 30_000;
  while (stack.providerWorld.calls('pdl.person') === 0 && Date.now() < deadline) await sleep(50);
  expect(stack.providerWorld.calls('pdl.person')).toBe(1);
  // The first heartbeat goes out at once; give it time to reach the server, with the company still being fetched.
  await sleep(1_000);
  expect(stack.providerWorld.calls('pdl.company')).toBe(1);
  const personCalls = [stack.providerWorld.calls('pdl.person'), stack.providerWorld.calls('apollo.people_match')];
  worker.kill('SIGKILL');
  await once(worker, 'exit');
  worker = null;

  await stack.startWorker();
  const ended = await stack.api.waitForEnd(key, researchId, 90_000);
  expect(ended.body.status).toBe('completed');
  expect(ended.body.data.prospect.name).toBe(person.fullName);
  expect(ended.body.data.company.name).toBeTruthy();

  // Attempt 2 ran on the new worker; the person came from attempt 1's heartbeat, the company was asked again.
  expect(await activityAttempts(researchId)).toContainEqual({ type: 'lookupParts', attempt: 2 });
  expect([stack.providerWorld.calls('pdl.person'), stack.providerWorld.calls('apollo.people_match')]).toEqual(personCalls);
  expect(stack.providerWorld.calls('pdl.company')).toBe(2);

  const connection = stack.orm.em.fork().getConnection();
  const [account] = await connection.execute('select credits_used from account where id = ?', [accountId]);
  const ledger = await connection.execute('select kind from credit_ledger_entry where account_id = ?', [accountId]);
  expect(account.credits_used).toBe(1);
  expect(ledger.map((row) => row.kind)).toEqual(['consume']);
}, 120_000);
