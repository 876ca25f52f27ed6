import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkInvariants, jobCounts } from '../../scripts/lib/chaos/invariants.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { ensureTemporalCli, startTemporalDevServer, type TemporalDevServer } from '../../scripts/lib/temporal-server.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/api.md#job-states and docs/api.md#refunds through a Temporal restart mid-job: jobs in flight end
// completed or failed with a refund; a POST while Temporal is down is accepted
// (202) and runs once Temporal is back: the relay starts its workflow
// (services/research/workflow-start-relay.ts). The file runs its own Temporal with a state file
// (the run's shared server is in memory and serves other files).

let workDir: string;
let port: number;
let temporal: TemporalDevServer;
let stack: TestStack;
let sql: pg.Pool;
const previousAddress = process.env.TEMPORAL_ADDRESS;

async function startTemporal(): Promise<TemporalDevServer> {
  return startTemporalDevServer({
    binary: ensureTemporalCli(ROOT),
    port,
    uiPort: null,
    dbFile: join(workDir, 'temporal.db'),
    sqlitePragmas: ['journal_mode=wal', 'synchronous=off'],
    logFile: join(workDir, 'temporal.log'),
  });
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'prospect-temporal-restart-'));
  port = await freePort();
  temporal = await startTemporal();
  process.env.TEMPORAL_ADDRESS = temporal.address;
  stack = await startTestStack({ deadlineMs: 40_000, backstopGraceMs: 2_000 });
  // Slow providers keep the jobs in flight across the restart.
  stack.providerWorld.setLatency({ '*': { meanMs: 700, jitterMs: 300 } });
  sql = new pg.Pool({ connectionString: stack.config.databaseUrl, max: 2 });
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await stack?.stop().catch(() => {});
  await temporal?.process.stop();
  process.env.TEMPORAL_ADDRESS = previousAddress;
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

it('jobs in flight through a Temporal restart end completed or failed with a refund; a POST during the outage is accepted and runs', async () => {
  const { accountId, key } = await stack.createCustomer('scale');
  const people = stack.providerWorld.world.samplePeople({ knownTo: 'both' }, 4);
  const accepted = await Promise.all(people.map((person) => stack.api.research(key, { email: person.email })));
  expect(accepted.map((reply) => reply.status)).toEqual([202, 202, 202, 202]);

  await waitUntil(async () => ((await jobCounts(sql, accountId)).processing ?? 0) >= 2, 20_000);
  await temporal.process.stop();
  const during = await stack.api.research(key, { email: 'during.outage@nowhere-corp.com' });
  expect(during.status).toBe(202);
  expect(during.body.status).toBe('processing');
  // While it waits for its workflow, the job reads as `queued`.
  expect((await stack.api.status(key, during.body.research_id)).body).toEqual({ research_id: during.body.research_id, status: 'queued', estimated_seconds: expect.any(Number) });
  temporal = await startTemporal();

  await waitUntil(async () => {
    const counts = await jobCounts(sql, accountId);
    return !counts.queued && !counts.processing;
  }, 60_000);
  const { summary, problems } = await checkInvariants(sql, accountId);
  expect(problems).toEqual([]);
  expect(summary.jobs).toBe(5);
  expect(summary.completed + summary.failed).toBe(5);
  expect(summary.creditsUsed).toBe(summary.completed);
  const [waited] = await sql.query('select status, error, workflow_started_at from research_job where id = $1', [during.body.research_id]).then((result) => result.rows);
  expect(waited).toEqual({ status: 'completed', error: null, workflow_started_at: expect.any(Date) });
}, 120_000);

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
