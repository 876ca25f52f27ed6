// Does the replay failure of parallel local activities
// (sdk-typescript#1744, TMPRL1100 "Activity type of recorded marker … does not
// match") still happen on the SDK in package.json? Runs the pipeline's shape
// with every lookup as a local activity, side by side, with delays that make
// completions land in and between workflow tasks, records each history on
// this SDK, and replays it on the same code.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import type { LookupActivities } from './fixtures/parallel-local-activities-workflow.ts';

const WORKFLOWS = join(import.meta.dirname, 'fixtures', 'parallel-local-activities-workflow.ts');
const TASK_QUEUE = 'parallel-local-activities';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
});
afterAll(() => stack?.stop());

/**
 * Deterministic delays, each part 0–400 ms; in every third run one part takes
 * 9 s, past the point (80 % of the 10 s workflow task timeout) where core
 * heartbeats the workflow task, so the completions around it fall into other
 * workflow tasks than in a replay.
 */
function delaysFor(run: number): number[] {
  let state = run * 7919 + 17;
  const delays = Array.from({ length: 7 }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % 401;
  });
  if (run % 3 === 2) delays[run % 7] = 9_000;
  return delays;
}

it('histories of side-by-side local activities recorded on this SDK replay on it', async () => {
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  const activities: LookupActivities = { lookup: async (part, delayMs) => (await sleep(delayMs), part) };
  const worker = await Worker.create({ connection, taskQueue: TASK_QUEUE, workflowsPath: WORKFLOWS, activities });
  const runs = Array.from({ length: 30 }, (_, run) => ({ workflowId: `parallel-la-${Date.now()}-${run}`, delays: delaysFor(run) }));
  await worker.runUntil(async () => {
    await Promise.all(
      runs.map(({ workflowId, delays }) =>
        stack.temporal.workflow.execute('parallelLookups', { taskQueue: TASK_QUEUE, workflowId, args: [delays] }),
      ),
    );
  });
  const histories = await Promise.all(runs.map(async ({ workflowId }) => ({ workflowId, history: await stack.temporal.workflow.getHandle(workflowId).fetchHistory() })));
  // The case that broke before: the lookups' results recorded in more than one workflow task.
  const lookupTaskGroups = histories.map(({ history }) => {
    let task = 0;
    const groups = new Set<number>();
    for (const event of history.events ?? []) {
      if (event.workflowTaskCompletedEventAttributes) task++;
      if (event.activityTaskScheduledEventAttributes) break;
      if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity') groups.add(task);
    }
    return groups.size;
  });
  expect(lookupTaskGroups.filter((groups) => groups > 1).length).toBeGreaterThan(0);
  const outcomes: Array<{ workflowId: string; error: string | null }> = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS, replayName: 'parallel-la' }, histories)) {
    outcomes.push({ workflowId: result.workflowId, error: result.error ? `${result.error.name}: ${result.error.message}` : null });
  }
  await connection.close();
  expect(outcomes).toEqual(runs.map(({ workflowId }) => ({ workflowId, error: null })));
}, 180_000);
