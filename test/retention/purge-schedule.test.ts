import { ScheduleOverlapPolicy, type ScheduleHandle } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PURGE_WORKFLOW_TYPE, noPurgeCounts, type PurgeReport } from '../../domain/retention/retention.ts';
import { ensurePurgeSchedule, purgeScheduleId } from '../../worker/purge-schedule.ts';
import { createSweepWorker, sweepTaskQueue } from '../../worker/sweep-schedule.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

describe('the purge Schedule', () => {
  let stack: TestStack;
  let handle: ScheduleHandle;
  // The purge runs on the housekeeping queue, not the research worker's.
  let housekeeping: { worker: Worker; connection: NativeConnection; done: Promise<void> };
  beforeAll(async () => {
    stack = await startTestStack();
    handle = stack.temporal.schedule.getHandle(purgeScheduleId(stack.config.temporal.taskQueue));
    const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
    const worker = await createSweepWorker({
      connection,
      namespace: stack.config.temporal.namespace,
      researchTaskQueue: stack.config.temporal.taskQueue,
      workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
      deps: { orm: stack.orm, clock: stack.clock.now, temporal: stack.temporal, staleAfterMs: stack.config.researchOverdueAfterMs },
    });
    housekeeping = { worker, connection, done: worker.run() };
  });
  afterAll(async () => {
    await handle?.delete().catch(() => {});
    housekeeping?.worker.shutdown();
    await housekeeping?.done;
    await housekeeping?.connection.close();
    await stack?.stop();
  });

  async function expectDailyPurge() {
    const description = await handle.describe();
    expect(description.spec.calendars).toHaveLength(1);
    expect(description.spec.calendars![0]).toMatchObject({ hour: [{ start: 3, end: 3 }], minute: [{ start: 30, end: 30 }] });
    expect(description.spec.intervals ?? []).toEqual([]);
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: PURGE_WORKFLOW_TYPE, taskQueue: sweepTaskQueue(stack.config.temporal.taskQueue) });
    expect(description.policies.overlap).toBe(ScheduleOverlapPolicy.SKIP);
    for (const next of description.info.nextActionTimes) expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([3, 30]);
    return description;
  }

  it('is created once at worker start, daily at 03:30 UTC, and a second start changes nothing', async () => {
    await ensurePurgeSchedule(stack.temporal, stack.config.temporal.taskQueue);
    const first = await expectDailyPurge();
    await ensurePurgeSchedule(stack.temporal, stack.config.temporal.taskQueue);
    expect((await expectDailyPurge()).info.createdAt).toEqual(first.info.createdAt);
  });

  it('brings an outdated Schedule to the current time and queue, and keeps it paused if an operator paused it', async () => {
    await handle.update((previous) => ({
      ...previous,
      spec: { intervals: [{ every: '1 hour' }] },
      action: { type: 'startWorkflow', workflowType: PURGE_WORKFLOW_TYPE, taskQueue: 'some-old-queue', args: [{}] },
    }));
    await handle.pause('investigating');
    await ensurePurgeSchedule(stack.temporal, stack.config.temporal.taskQueue);
    const description = await expectDailyPurge();
    expect(description.state).toMatchObject({ paused: true, note: 'investigating' });
    await handle.unpause();
  });

  it('runs a purge now when triggered (temporal schedule trigger), visible as a workflow of its own', async () => {
    await handle.trigger();
    let workflowId: string | undefined;
    for (let attempt = 0; attempt < 100 && !workflowId; attempt++) {
      workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
      if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(workflowId).toMatch(new RegExp(`^${purgeScheduleId(stack.config.temporal.taskQueue)}-`));
    const report: PurgeReport = await stack.temporal.workflow.getHandle(workflowId!).result();
    expect(report.deleted).toEqual(noPurgeCounts());
    expect(Math.abs(new Date(report.now).getTime() - stack.clock.now().getTime())).toBeLessThan(60_000);
  });
});
