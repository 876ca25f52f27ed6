import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkInvariants, jobCounts } from '../../scripts/lib/chaos/invariants.ts';
import { freePort } from '../../scripts/lib/free-port.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from '../../scripts/lib/postgres-server.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

// docs/api.md#job-states and docs/api.md#refunds through a PostgreSQL restart mid-job: every job ends
// (completed, or failed with its refund), no credit is lost or taken twice.
// The file runs its own cluster, since the run's shared one serves other files.

let workDir: string;
let port: number;
let postgres: EmbeddedPostgresServer;
let stack: TestStack;
let sql: pg.Pool;
const previousAdminUrl = process.env.TEST_POSTGRES_ADMIN_URL;

async function startPostgres(): Promise<EmbeddedPostgresServer> {
  return startEmbeddedPostgres({ dataDir: join(workDir, 'postgres'), port, database: 'postgres', isThrowaway: true, logFile: join(workDir, 'postgres.log') });
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'prospect-pg-restart-'));
  chmodSync(workDir, 0o755); // the postgres system user must reach its data directory inside
  port = await freePort();
  postgres = await startPostgres();
  process.env.TEST_POSTGRES_ADMIN_URL = postgres.url;
  stack = await startTestStack({ deadlineMs: 30_000, backstopGraceMs: 2_000 });
  // Slow providers keep the jobs in flight across the restart.
  stack.providerWorld.setLatency({ '*': { meanMs: 700, jitterMs: 300 } });
  sql = new pg.Pool({ connectionString: stack.config.databaseUrl, max: 2 });
  sql.on('error', () => {}); // idle clients lose their server during the restart
});

afterAll(async () => {
  await sql?.end();
  await stack?.stop().catch(() => {});
  await postgres?.stop();
  process.env.TEST_POSTGRES_ADMIN_URL = previousAdminUrl;
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

it('jobs in flight through a PostgreSQL restart end completed or failed with a refund; the ledger balances', async () => {
  const { accountId, key } = await stack.createCustomer('scale');
  const people = stack.providerWorld.world.samplePeople({ knownTo: 'both' }, 4);
  const accepted = await Promise.all(people.map((person) => stack.api.research(key, { email: person.email })));
  expect(accepted.map((reply) => reply.status)).toEqual([202, 202, 202, 202]);

  await waitUntil(async () => ((await jobCounts(sql, accountId)).processing ?? 0) >= 2, 20_000);
  await postgres.stop(); // fast shutdown: every connection of the API and the worker is cut
  const during = await stack.api.research(key, { email: 'during.outage@nowhere-corp.com' });
  expect(during.status).toBe(500);
  expect(during.body).toEqual({ error: 'internal_error', message: expect.any(String) });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  postgres = await startPostgres();

  await waitUntil(async () => {
    const counts = await jobCounts(sql, accountId);
    return !counts.queued && !counts.processing;
  }, 45_000);
  const { summary, problems } = await checkInvariants(sql, accountId);
  expect(problems).toEqual([]);
  expect(summary.jobs).toBe(4); // the POST during the outage recorded nothing and took nothing
  expect(summary.completed + summary.failed).toBe(4);
  expect(summary.creditsUsed).toBe(summary.completed);
  for (const reply of accepted) {
    const status = await stack.api.status(key, reply.body.research_id);
    expect(['completed', 'failed']).toContain(status.body.status);
  }
}, 90_000);

async function waitUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
