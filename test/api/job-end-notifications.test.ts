import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobEndNotifications } from '../../db/job-end-notifications.ts';
import { failJob } from '../../services/research/jobs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// `?wait` long polls sleep until PostgreSQL announces their job's end
// (db/job-end-notifications.ts). No worker runs here: jobs stay queued until
// the test ends them, the way the API's backstop or the sweeper would.

let stack: TestStack;
let customer: { key: string };
let listener: JobEndNotifications;

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  customer = await stack.createCustomer('growth');
  listener = new JobEndNotifications(stack.config.databaseUrl, pino({ level: 'silent' }));
  await listener.start();
});
afterAll(async () => {
  await listener?.close();
  await stack?.stop();
});

async function queuedJob(): Promise<string> {
  const accepted = await stack.api.research(customer.key, { email: `waiting-${Math.random().toString(36).slice(2)}@nowhere-corp.com` });
  expect(accepted.status).toBe(202);
  return accepted.body.research_id;
}

const endJob = (researchId: string) => failJob(stack.orm.em.fork(), researchId, 'internal_error', new Date());

/**
 * The backends of LISTEN connections on this file's database, as PostgreSQL
 * sees them (other test files share the server, with databases of their own).
 */
const LISTENERS = `from pg_stat_activity where query = 'listen research_job_ended' and datname = current_database()`;

async function listenerBackends(): Promise<number[]> {
  const rows = await stack.orm.em.fork().getConnection().execute(`select pid ${LISTENERS}`);
  return rows.map((row) => Number(row.pid));
}

describe('job-end notifications', () => {
  it('wake the waiters of a job when it ends, and only them', async () => {
    const [ending, other] = [await queuedJob(), await queuedJob()];
    const endingWait = listener.wait(ending, 20_000);
    const otherWait = listener.wait(other, 20_000);
    await endJob(ending);
    expect(await endingWait.outcome).toBe('ended');
    otherWait.cancel();
    expect(await otherWait.outcome).toBe('timeout');
  });

  it('end a wait at its timeout when the job keeps running', async () => {
    expect(await listener.wait(await queuedJob(), 50).outcome).toBe('timeout');
  });

  it('wake every waiter when the connection is lost, then listen again', async () => {
    const waiting = listener.wait(await queuedJob(), 20_000);
    const before = await listenerBackends();
    await stack.orm.em.fork().getConnection().execute(`select pg_terminate_backend(pid) ${LISTENERS}`);
    expect(await waiting.outcome).toBe('interrupted');

    // Back within the reconnect delays: a new backend listens, and ends are announced again.
    let after: number[] = [];
    for (let attempt = 0; attempt < 100 && after.filter((pid) => !before.includes(pid)).length < 2; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await listenerBackends();
    }
    expect(after.filter((pid) => !before.includes(pid))).toHaveLength(2); // this listener's and the API's
    const job = await queuedJob();
    const again = listener.wait(job, 20_000);
    await endJob(job);
    expect(await again.outcome).toBe('ended');
  });
});

describe('GET /research-status/{id}?wait=N', () => {
  it('answers as soon as the job ends, with the ended job', async () => {
    const researchId = await queuedJob();
    const reply = stack.api.status(customer.key, researchId, 25);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await endJob(researchId);
    expect((await reply).body).toEqual({ research_id: researchId, status: 'failed', error: 'internal_error' });
  });

  it('answers with the running job when N seconds pass first', async () => {
    const researchId = await queuedJob();
    const reply = await stack.api.status(customer.key, researchId, 1);
    expect(reply.body).toMatchObject({ research_id: researchId, status: 'queued' });
  });
});
