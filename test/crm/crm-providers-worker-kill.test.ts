// Pipedrive and Salesforce as crm-worker-kill.test.ts proves HubSpot: the
// worker (worker/main.ts, research and CRM queues in one process, both CRMs
// configured) SIGKILLed in the middle of a 12-contact sync run. Another
// worker finishes the run: every contact researched once, charged once,
// written once and noted once in the CRM's stand-in; nothing left in progress.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { crmTestSettings, startCrmRun } from '../helpers/crm-fixture.ts';
import { startCrmPortals, type PortalCrm, type TestPortals } from '../helpers/crm-portals.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { creditsOf } from '../helpers/lists.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { until } from '../helpers/until.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

const CONTACTS = 12;

let stack: TestStack;
let portals: TestPortals;
let crmWorker: TestCrmWorker | null = null;
let workerProcess: ChildProcess | null = null;
const em = () => stack.orm.em.fork();

beforeAll(async () => {
  portals = await startCrmPortals({ world: createWorld(), em });
  stack = await startTestStack({ withWorker: false });
  // Schedule ids name the product and the worker reconciles every Schedule at start: ids no other file of the run reaches.
  await em().execute(`select setval(pg_get_serial_sequence('product_context', 'id'), ?)`, [500_000 + Math.floor(Math.random() * 100_000)]);
}, 180_000);
afterAll(async () => {
  workerProcess?.kill('SIGKILL');
  await crmWorker?.stop();
  await portals?.stop();
  await stack?.stop();
});

describe.each(['pipedrive', 'salesforce'] as const)('%s', (crm: PortalCrm) => {
  it(`a worker SIGKILLed mid-way through a ${CONTACTS}-contact run: each contact researched, charged, written and noted once`, async () => {
    const portal = portals[crm];
    const accountId = await stack.createAccount('growth');
    await stack.createKey(accountId);
    const [{ id: productId }] = await em().execute('select id from product_context where account_id = ?', [accountId]);
    await portal.connect(em(), accountId);
    await saveCrmSettings(em(), accountId, productId, crmTestSettings({ scoreProperty: portal.scoreField, minScore: 0, researchLimit: CONTACTS, digestEnabled: false }), new Date());
    const notesBefore = portal.noteCounts();

    // Slow providers, unevenly so, keep contacts in flight and ending one by one while the worker is killed among them.
    stack.providerWorld.setLatency({ '*': { meanMs: 500, jitterMs: 450 } });
    workerProcess = startWorkerProcess(stack, portals.env);
    const runId = `crm-run-${productId}-kill`;
    const handle = await startCrmRun(stack, productId, runId);
    const endedJobs = async () => (await em().execute(`select count(*)::int as n from research_job where source_ref = ? and status in ('completed', 'failed')`, [runId]))[0].n as number;
    await until(async () => (await endedJobs()) >= 3, 90_000);
    expect(await endedJobs()).toBeLessThan(CONTACTS);
    workerProcess.kill('SIGKILL');
    await once(workerProcess, 'exit');
    workerProcess = null;

    await stack.startWorker();
    crmWorker = await startTestCrmWorker(stack, portals);
    const result = (await handle.result()) as CrmSyncResult;
    stack.providerWorld.setLatency(null);
    await crmWorker.stop();
    crmWorker = null;
    await stack.stopWorker();

    expect(result).toMatchObject({ status: 'completed', counts: { researched: CONTACTS, failed: 0, creditsUsed: CONTACTS } });

    // One job per contact, from the CRM; one credit per job.
    const jobs: Array<{ id: string; source: string; source_item: string; status: string }> = await em().execute(
      'select id, source, source_item, status from research_job where source_ref = ?',
      [runId],
    );
    expect(jobs).toHaveLength(CONTACTS);
    expect(new Set(jobs.map((job) => job.source_item)).size).toBe(CONTACTS);
    expect(jobs.every((job) => job.source === 'crm' && job.status === 'completed')).toBe(true);
    const credits = await creditsOf(stack, accountId);
    expect([...credits.consumed].sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(credits).toMatchObject({ used: CONTACTS, refunded: [] });

    // Written once and noted once in the CRM; nothing left in progress.
    const rows: Array<{ contact_id: string; outcome: string; research_id: string | null }> = await em().execute(
      'select contact_id, outcome, research_id from crm_sync_contact where run_id = ? and skip_reason is null',
      [runId],
    );
    expect(rows).toHaveLength(CONTACTS);
    for (const row of rows) {
      expect(row.outcome).toBe('researched');
      expect(row.research_id).toBe(jobs.find((job) => job.source_item === row.contact_id)!.id);
      expect(portal.statusOf(productId, row.contact_id), `status of ${row.contact_id}`).toBe('completed');
      expect(portal.ownValueOf(productId, row.contact_id, 'prospect_summary')).toBeTruthy();
      expect(portal.notesOf(row.contact_id) - (notesBefore.get(row.contact_id) ?? 0), `notes of ${row.contact_id}`).toBe(1);
    }
    const [left] = await em().execute(`select count(*)::int as n from crm_contact_state where product_id = ? and status = 'in_progress'`, [productId]);
    expect(left.n).toBe(0);
  }, 180_000);
});
