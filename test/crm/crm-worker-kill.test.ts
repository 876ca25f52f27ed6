// Faults: the worker (worker/main.ts, research and
// CRM queues in one process) SIGKILLed in the middle of a 20-contact sync run.
// Another worker finishes the run: every contact researched once, charged
// once, written once and noted once; nothing left in progress.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CRM_SYNC_WORKFLOW_TYPE } from '../../domain/crm/crm.ts';
import { crmPropertyName } from '../../domain/crm/fields.ts';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { crmTaskQueue } from '../../services/crm/schedules.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { creditsOf } from '../helpers/lists.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

let stack: TestStack;
let crm: CrmFixture;
let crmWorker: TestCrmWorker | null = null;
let workerProcess: ChildProcess | null = null;
const em = () => stack.orm.em.fork();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  crm = await startCrmFixture({ world: createWorld(), em, people: 60 });
  stack = await startTestStack({ withWorker: false });
}, 180_000);
afterAll(async () => {
  workerProcess?.kill('SIGKILL');
  await crmWorker?.stop();
  await crm?.stop();
  await stack?.stop();
});

it('a worker SIGKILLed mid-way through a 20-contact run: each contact researched, charged, written and noted once', async () => {
  const accountId = await stack.createAccount('growth');
  await stack.createKey(accountId);
  const [{ id: productId }] = await em().execute('select id from product_context where account_id = ?', [accountId]);
  await crm.connect(em(), accountId);
  await saveCrmSettings(em(), accountId, productId, {
    cadence: 'daily', hourUtc: 8, scoreProperty: 'hubspotscore', minScore: 0, skipFreeMail: false, skipRoleBased: false, researchLimit: 20,
    chatWebhookUrl: null, digestEnabled: false, digestEmail: null, active: true,
  }, new Date());

  // Slow providers keep contacts in flight long enough to kill the worker among them.
  stack.providerWorld.setLatency({ '*': { meanMs: 400 } });
  workerProcess = startWorkerProcess(stack, crm.env);
  const runId = `crm-run-${productId}-kill`;
  const handle = await stack.temporal.workflow.start(CRM_SYNC_WORKFLOW_TYPE, {
    workflowId: runId,
    taskQueue: crmTaskQueue(stack.config.temporal.taskQueue),
    args: [{ productId, trigger: 'manual' }],
  });
  const endedJobs = async () => (await em().execute(`select count(*)::int as n from research_job where source_ref = ? and status in ('completed', 'failed')`, [runId]))[0].n as number;
  const deadline = Date.now() + 120_000;
  while ((await endedJobs()) < 5 && Date.now() < deadline) await sleep(250);
  expect(await endedJobs()).toBeGreaterThanOrEqual(5);
  expect(await endedJobs()).toBeLessThan(20);
  workerProcess.kill('SIGKILL');
  await once(workerProcess, 'exit');
  workerProcess = null;

  await stack.startWorker();
  crmWorker = await startTestCrmWorker(stack, crm);
  const result = (await handle.result()) as CrmSyncResult;
  stack.providerWorld.setLatency(null);

  expect(result.status).toBe('completed');
  expect(result.counts.researched + result.counts.failed).toBe(20);
  expect(result.counts.creditsUsed).toBe(20);

  // One job per contact, from the CRM; one credit per job.
  const jobs: Array<{ id: string; source: string; source_item: string; status: string }> = await em().execute(
    'select id, source, source_item, status from research_job where source_ref = ?',
    [runId],
  );
  expect(jobs).toHaveLength(20);
  expect(new Set(jobs.map((job) => job.source_item)).size).toBe(20);
  expect(jobs.every((job) => job.source === 'crm')).toBe(true);
  const credits = await creditsOf(stack, accountId);
  expect([...credits.consumed].sort()).toEqual(jobs.map((job) => job.id).sort());
  expect(credits.used).toBe(20 - credits.refunded.length);

  // Written once and noted once; nothing left in progress.
  const rows: Array<{ contact_id: string; outcome: string; research_id: string | null }> = await em().execute(
    'select contact_id, outcome, research_id from crm_sync_contact where run_id = ? and skip_reason is null',
    [runId],
  );
  expect(rows).toHaveLength(20);
  for (const row of rows) {
    const job = jobs.find((each) => each.source_item === row.contact_id)!;
    expect(row.research_id).toBe(job.id);
    if (row.outcome !== 'researched') continue;
    const contact = crm.hubspot.portal().contacts.get(row.contact_id)!;
    expect(contact.properties[crmPropertyName(productId, 'status')]).toBe('completed');
    const notes = [...crm.hubspot.portal().notes.values()].filter((note) => note.contactIds.includes(row.contact_id));
    expect(notes).toHaveLength(1);
  }
  const leftovers = await em().execute(`select count(*)::int as n from crm_contact_state where product_id = ? and status = 'in_progress'`, [productId]);
  expect(leftovers[0].n).toBe(0);
}, 300_000);
