import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

let stack: TestStack;
let worker: ChildProcess | null = null;

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  // Slow providers keep the job in flight long enough to kill its worker mid-way.
  stack.providerWorld.setLatency({ '*': { meanMs: 1_500 } });
});
afterAll(async () => {
  worker?.kill('SIGKILL');
  await stack?.stop();
});

async function jobStatus(researchId: string): Promise<string> {
  const [row] = await stack.orm.em.fork().getConnection().execute('select status from research_job where id = ?', [researchId]);
  return row.status;
}

it('a worker killed (SIGKILL) mid-job: another worker finishes the job, with exactly one credit used', async () => {
  const { accountId, key } = await stack.createCustomer('growth');
  worker = startWorkerProcess(stack);
  const accepted = await stack.api.research(key, { email: samplePerson(stack, { knownTo: 'both' }).email });
  const researchId = accepted.body.research_id;

  const deadline = Date.now() + 30_000;
  while ((await jobStatus(researchId)) !== 'processing' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await jobStatus(researchId)).toBe('processing');
  await new Promise((resolve) => setTimeout(resolve, 500));
  worker.kill('SIGKILL');
  await once(worker, 'exit');
  expect(await jobStatus(researchId)).toBe('processing');

  await stack.startWorker();
  const ended = await stack.api.waitForEnd(key, researchId, 90_000);
  expect(ended.body.status).toBe('completed');
  expect(ended.body.data.prospect.name).toBeTruthy();

  const connection = stack.orm.em.fork().getConnection();
  const [account] = await connection.execute('select credits_used from account where id = ?', [accountId]);
  const ledger = await connection.execute('select kind from credit_ledger_entry where account_id = ?', [accountId]);
  expect(account.credits_used).toBe(1);
  expect(ledger.map((row) => row.kind)).toEqual(['consume']);
}, 120_000);
