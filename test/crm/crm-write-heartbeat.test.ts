// A CRM write-back in flight on a worker that dies. The CRM
// activities heartbeat (activities/crm-sync.ts, workflows/activity-profiles.ts):
// the write is tried again on another worker once the heartbeat timeout
// passes, not after its 2-minute start-to-close timeout (a run took 126 s
// instead of about 30).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CRM_SYNC_WORKFLOW_TYPE } from '../../domain/crm/crm.ts';
import { crmPropertyName } from '../../domain/crm/fields.ts';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { crmTaskQueue } from '../../services/crm/schedules.ts';
import { connectedIntegration, startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

let stack: TestStack;
let crm: CrmFixture;
let crmWorker: TestCrmWorker | null = null;
let workerProcess: ChildProcess | null = null;
const em = () => stack.orm.em.fork();
/** temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT */
const TIMEOUT_TYPE_HEARTBEAT = 4;

const setFaults = (faults: Record<string, unknown>) =>
  fetch(`${crm.hubspot.url}/__admin/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults) });

beforeAll(async () => {
  crm = await startCrmFixture({ world: createWorld(), em });
  stack = await startTestStack({ withWorker: false });
}, 180_000);
afterAll(async () => {
  workerProcess?.kill('SIGKILL');
  await crmWorker?.stop();
  await crm?.stop();
  await stack?.stop();
});

it('a worker SIGKILLed with a HubSpot write in flight: another worker writes the contact within seconds', async () => {
  const { productId } = await connectedIntegration(stack, crm, { researchLimit: 1, digestEnabled: false });
  // HubSpot answers writes only after a minute: the first write-back is in flight when the worker dies.
  await setFaults({ on: 'write', stallMs: 60_000 });
  workerProcess = startWorkerProcess(stack, crm.env);
  const handle = await stack.temporal.workflow.start(CRM_SYNC_WORKFLOW_TYPE, {
    workflowId: `crm-run-${productId}-heartbeat`,
    taskQueue: crmTaskQueue(stack.config.temporal.taskQueue),
    args: [{ productId, trigger: 'manual' }],
  });
  const writeInFlight = async () =>
    ((await handle.describe()).raw.pendingActivities ?? []).some((activity) => activity.activityType?.name === 'crmWriteBatch' && activity.lastStartedTime);
  await expect.poll(writeInFlight, { timeout: 120_000, interval: 250 }).toBe(true);
  // A second in flight, heartbeating.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  workerProcess.kill('SIGKILL');
  await once(workerProcess, 'exit');
  const killedAt = Date.now();
  workerProcess = null;

  await setFaults({ on: 'all', stallMs: 0 });
  await stack.startWorker();
  crmWorker = await startTestCrmWorker(stack, crm);
  const result = (await handle.result()) as CrmSyncResult;
  const tookMs = Date.now() - killedAt;

  expect(result).toMatchObject({ status: 'completed', counts: { researched: 1, failed: 0 } });
  const [row] = await em().execute(`select contact_id from crm_sync_contact where run_id = ? and outcome = 'researched'`, [result.runId]);
  expect(crm.hubspot.portal().contacts.get(row.contact_id)!.properties[crmPropertyName(productId, 'status')]).toBe('completed');
  // The heartbeat timeout (10 s) and a retry, not the 2-minute start-to-close timeout.
  expect(tookMs).toBeLessThan(40_000);
  // The write's second attempt started because the first missed its heartbeats.
  const history = await handle.fetchHistory();
  const retried = (history.events ?? []).filter((event) => (event.activityTaskStartedEventAttributes?.attempt ?? 1) > 1);
  expect(retried.map((event) => event.activityTaskStartedEventAttributes?.lastFailure?.timeoutFailureInfo?.timeoutType)).toContain(TIMEOUT_TYPE_HEARTBEAT);
}, 240_000);
