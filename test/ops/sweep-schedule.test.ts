import { randomBytes } from 'node:crypto';
import { Client, Connection, ScheduleOverlapPolicy } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAINTENANCE_DIVISION, SWEEP_INTERVAL_MS, SWEEP_WORKFLOW_TYPE } from '../../domain/research/contract.ts';
import { waitFor } from '../../scripts/lib/child-process.ts';
import { ensureSweepSchedule, sweepTaskQueue } from '../../worker/sweep-schedule.ts';

let client: Client;
beforeAll(async () => {
  client = new Client({ connection: await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! }) });
});
afterAll(async () => {
  await client?.connection.close();
});

const listIds = async (query: string) => {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
};

describe('the sweep Schedule', () => {
  it('runs every 10 minutes, not every minute', () => {
    expect(SWEEP_INTERVAL_MS).toBe(10 * 60 * 1000);
  });

  it("keeps its runs out of the default workflow list; the division query finds them", async () => {
    const researchQueue = `research-${randomBytes(4).toString('hex')}`;
    await ensureSweepSchedule(client, researchQueue, SWEEP_INTERVAL_MS);
    const schedule = client.schedule.getHandle(`sweep-stale-jobs-${researchQueue}`);
    try {
      const described = await schedule.describe();
      expect(described.spec.intervals?.map(({ every }) => every)).toEqual([SWEEP_INTERVAL_MS]);
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: SWEEP_WORKFLOW_TYPE, taskQueue: sweepTaskQueue(researchQueue) });

      await schedule.trigger();
      const byThisSchedule = `TemporalScheduledById = "${schedule.scheduleId}"`;
      const inDivision = `${byThisSchedule} AND TemporalNamespaceDivision = "${MAINTENANCE_DIVISION}"`;
      await waitFor('the triggered sweep in the maintenance division', async () => (await listIds(inDivision)).length === 1, 20_000);
      // The same filter without the division, as the UI's and the CLI's default list run it: no sweep.
      expect(await listIds(byThisSchedule)).toEqual([]);
      const [runId] = await listIds(inDivision);
      await client.workflow.getHandle(runId!).terminate('test over');
    } finally {
      await schedule.delete();
    }
  });

  it('moves a Schedule made before the division into it', async () => {
    const researchQueue = `research-${randomBytes(4).toString('hex')}`;
    const scheduleId = `sweep-stale-jobs-${researchQueue}`;
    await client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: 60_000 }] },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      action: { type: 'startWorkflow', workflowType: SWEEP_WORKFLOW_TYPE, taskQueue: sweepTaskQueue(researchQueue), args: [] },
    });
    const schedule = client.schedule.getHandle(scheduleId);
    try {
      await ensureSweepSchedule(client, researchQueue, SWEEP_INTERVAL_MS);
      const described = await schedule.describe();
      expect(described.spec.intervals?.[0]?.every).toBe(SWEEP_INTERVAL_MS);
      const action = described.action as { typedSearchAttributes?: { getAll(): Array<{ key: { name: string }; value: unknown }> } };
      expect(action.typedSearchAttributes?.getAll().map(({ key, value }) => [key.name, value])).toEqual([['TemporalNamespaceDivision', MAINTENANCE_DIVISION]]);
    } finally {
      await schedule.delete();
    }
  });
});
