// Safe rollouts with Worker Versioning: build A runs a long CRM run and a
// list; build B, whose list and CRM workflows changed incompatibly, is
// deployed beside it, ramped and made current. The runs in flight finish on
// A (pinned), new ones start on B, and nothing fails.
import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../db/entities/account.ts';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import { RESEARCH_DEADLINE_MS } from '../../domain/research/contract.ts';
import { listRunWorkflowId } from '../../domain/lists/lists.ts';
import { createLogger } from '../../lib/logger.ts';
import { ensureTemporalCli } from '../../scripts/lib/temporal-server.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { createCrm } from '../../services/crm/crm.ts';
import { startListRunWorkflow } from '../../services/lists/runs.ts';
import { createListDraft, startList } from '../../services/lists/lists.ts';
import { connectedIntegration, startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

const DEPLOYMENT = 'prospect-enrichment-test';
let stack: TestStack;
let crm: CrmFixture;
let workDir: string;
const workers: ChildProcess[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  crm = await startCrmFixture({ world: stack.providerWorld.world, em: () => stack.orm.em.fork(), people: 40 });
  workDir = mkdtempSync(join(tmpdir(), 'versioning-'));
}, 120_000);
afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await crm?.stop();
  await stack?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The operator's step, as the docs give it: the Temporal CLI against the cluster. */
function deployment(command: 'set-current-version' | 'set-ramping-version', buildId: string, extra: string[] = []): void {
  execFileSync(ensureTemporalCli(ROOT), ['worker', 'deployment', command, '--deployment-name', DEPLOYMENT, '--build-id', buildId, '--yes', '--address', stack.config.temporal.address, ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Waits until the server knows the version's pollers, then makes it current. */
async function makeCurrent(buildId: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      deployment('set-current-version', buildId);
      return;
    } catch (error) {
      if (attempt > 60) throw error;
      await sleep(500);
    }
  }
}

function startBuild(buildId: string, bundlePath: string): ChildProcess {
  const worker = startWorkerProcess(stack, {
    ...crm.env,
    WORKER_ROLES: 'research,crm',
    TEMPORAL_DEPLOYMENT_NAME: DEPLOYMENT,
    TEMPORAL_WORKER_BUILD_ID: buildId,
    WORKFLOW_BUNDLE_PATH: bundlePath,
  });
  workers.push(worker);
  return worker;
}

async function buildOf(temporal: Client, workflowId: string): Promise<{ buildId: string | null | undefined; behavior: unknown }> {
  const description = await temporal.workflow.getHandle(workflowId).describe();
  const versioning = description.raw.workflowExecutionInfo?.versioningInfo;
  return { buildId: versioning?.deploymentVersion?.buildId, behavior: versioning?.behavior };
}

/** Build B's mark: the 1 ms timer its changed workflows start first (the runs' own timers are seconds long). */
async function hasTimer(handle: WorkflowHandle): Promise<boolean> {
  return ((await handle.fetchHistory()).events ?? []).some((event) => {
    const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
    return timeout != null && Number(timeout.seconds ?? 0) === 0 && Number(timeout.nanos ?? 0) <= 1_000_000;
  });
}

async function startTestList(rows: number, offset: number): Promise<string> {
  const accountId = await stack.createAccount('growth');
  await stack.createKey(accountId);
  const account = await stack.orm.em.fork().findOneOrFail(Account, accountId);
  const emails = stack.providerWorld.world.samplePeople({}, offset + rows).slice(offset).map((person) => person.email);
  const draft = await createListDraft(stack.orm.em.fork(), account, { pasted: emails.join('\n'), name: `versioning ${offset}` }, new Date());
  await startList(stack.orm.em.fork(), accountId, draft.id, {}, new Date());
  await startListRunWorkflow({ temporal: stack.temporal, taskQueue: stack.config.temporal.taskQueue, deadlineMs: RESEARCH_DEADLINE_MS }, stack.orm.em.fork(), draft.id, new Date());
  return draft.id;
}

describe('Worker Versioning', () => {
  it('keeps runs in flight on build A while new ones start on build B, and nothing fails', { timeout: 300_000 }, async () => {
    const bundleB = join(workDir, 'workflows-build-b.js');
    writeFileSync(bundleB, (await bundleWorkflowCode({ workflowsPath: join(import.meta.dirname, 'fixtures', 'workflows-build-b.ts'), logger: createLogger('bundler', 'warn') as never })).code);

    startBuild('build-a', process.env.TEST_WORKFLOW_BUNDLE!);
    await makeCurrent('build-a');

    // A long CRM run and a list on A: slow providers keep them going across the rollout.
    stack.providerWorld.setLatency({ '*': { meanMs: 600 } });
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 16, minScore: 0, skipFreeMail: false, skipRoleBased: false });
    const service = createCrm({ orm: stack.orm, temporal: stack.temporal, env: crm.env, publicUrl: 'http://127.0.0.1:9', clock: () => new Date(), researchTaskQueue: stack.config.temporal.taskQueue, logger: createLogger('test', 'silent') })!;
    const crmRunA = await service.runNow(accountId, productId);
    const listA = await startTestList(24, 0);
    await sleep(3_000);

    // Build B beside A; ramped, then current.
    startBuild('build-b', bundleB);
    for (let attempt = 0; ; attempt += 1) {
      try {
        deployment('set-ramping-version', 'build-b', ['--percentage', '50']);
        break;
      } catch (error) {
        if (attempt > 60) throw error;
        await sleep(500);
      }
    }
    await makeCurrent('build-b');
    // The rollout happened under them: both were still running when B became current.
    const [listARow] = await stack.orm.em.fork().execute('select status from prospect_list where id = ?', [listA]);
    expect(listARow.status).toBe('running');
    expect((await stack.temporal.workflow.getHandle(crmRunA).describe()).status.name).toBe('RUNNING');
    const listB = await startTestList(8, 24);
    const crmRunB = await service.runNow(accountId, productId);

    const crmA = (await stack.temporal.workflow.getHandle(crmRunA).result()) as CrmSyncResult;
    const crmB = (await stack.temporal.workflow.getHandle(crmRunB).result()) as CrmSyncResult;
    expect(crmA.status).toBe('completed');
    expect(crmB.status).toBe('completed');
    const listEnd = async (listId: string) => {
      for (let waited = 0; waited < 240; waited += 1) {
        const [row] = await stack.orm.em.fork().execute('select status from prospect_list where id = ?', [listId]);
        if (['completed', 'cancelled', 'failed'].includes(row.status)) return row.status as string;
        await sleep(1_000);
      }
      return 'running';
    };
    expect(await listEnd(listA)).toBe('completed');
    expect(await listEnd(listB)).toBe('completed');
    stack.providerWorld.setLatency(null);

    // Pinned where they started: A's runs never saw B's code (no timer), B's did.
    expect(await buildOf(stack.temporal, crmRunA)).toMatchObject({ buildId: 'build-a' });
    expect(await buildOf(stack.temporal, listRunWorkflowId(listA))).toMatchObject({ buildId: 'build-a' });
    expect(await buildOf(stack.temporal, crmRunB)).toMatchObject({ buildId: 'build-b' });
    expect(await buildOf(stack.temporal, listRunWorkflowId(listB))).toMatchObject({ buildId: 'build-b' });
    expect(await hasTimer(stack.temporal.workflow.getHandle(crmRunA))).toBe(false);
    expect(await hasTimer(stack.temporal.workflow.getHandle(crmRunB))).toBe(true);
    expect(await hasTimer(stack.temporal.workflow.getHandle(listRunWorkflowId(listB)))).toBe(true);

    // Nothing failed: every job of both runs and both lists completed.
    const [jobs] = await stack.orm.em.fork().execute(
      `select count(*) filter (where status = 'completed')::int as completed, count(*) filter (where status <> 'completed')::int as other
         from research_job where source_ref in (?, ?, ?, ?)`,
      [crmRunA, crmRunB, listA, listB],
    );
    expect(jobs).toMatchObject({ other: 0 });
    expect(jobs.completed).toBeGreaterThanOrEqual(24 + 8);

    for (const worker of workers) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
  });
});
