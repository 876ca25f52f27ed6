// Fairness between accounts on the research queue, on the run's real Temporal
// dev server (Task Queue Fairness on, one partition per queue, so the order is
// exact): jobs are started as the API and the relay start them
// (startJobWorkflow, with the account's fairness key and its plan's weight)
// on a queue of their own while nothing polls it; then a stand-in worker
// takes the workflow tasks one at a time and completes each workflow in the
// order the server hands them out.
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanName } from '../../domain/billing/plans.ts';
import { DEFAULT_FAIRNESS_WEIGHTS, parseFairnessWeights, type FairnessWeights } from '../../domain/research/fairness.ts';
import { loadConfig } from '../../lib/config.ts';
import { ConfigError } from '../../lib/env.ts';
import { startJobWorkflow } from '../../services/research/workflow-start-relay.ts';

const { enums } = proto.temporal.api;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  client = new Client({ connection });
});
afterAll(async () => {
  await connection?.close();
});

interface Account {
  id: number;
  plan: PlanName;
}

/** A queue of its own per test: no other test's tasks, and nothing polls it until `completeInOrder`. */
const newQueue = () => `fairness-${randomBytes(4).toString('hex')}`;
let nextAccountId = 1_000;
const account = (plan: PlanName = 'growth'): Account => ({ id: nextAccountId++, plan });

/** Queues `count` API jobs of `owner` (workflow ids `<account id>-<n>`), each started as the API starts one. */
async function queueJobs(queue: string, owner: Account, count: number, weights: FairnessWeights = DEFAULT_FAIRNESS_WEIGHTS): Promise<void> {
  const starts = { temporal: client, taskQueue: queue, deadlineMs: 180_000, fairnessWeights: weights };
  const run = randomBytes(3).toString('hex');
  for (let index = 0; index < count; index += 1) {
    const job = { id: `${owner.id}-${index}-${run}`, accountId: owner.id, plan: owner.plan, submittedAt: new Date(), source: 'api' as const };
    await startJobWorkflow(starts, job, 5_000);
  }
}

/**
 * The stand-in worker: one workflow task at a time, each completing its
 * workflow at once; the account ids in the order the server handed them out.
 */
async function completeInOrder(queue: string, count: number): Promise<number[]> {
  const order: number[] = [];
  while (order.length < count) {
    const task = await connection.withDeadline(Date.now() + 20_000, () => connection.workflowService.pollWorkflowTaskQueue({
      namespace: 'default',
      taskQueue: { name: queue, kind: enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      identity: 'fairness-test',
    }));
    if (!task.taskToken?.length) continue; // a poll that timed out empty
    order.push(Number(task.workflowExecution!.workflowId!.split('-')[0]));
    await connection.workflowService.respondWorkflowTaskCompleted({
      namespace: 'default',
      taskToken: task.taskToken,
      identity: 'fairness-test',
      commands: [{
        commandType: enums.v1.CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
        completeWorkflowExecutionCommandAttributes: {},
      }],
    });
  }
  return order;
}

const countOf = (order: number[], owner: Account) => order.filter((id) => id === owner.id).length;

describe('fairness between accounts on the research queue', () => {
  it('hands two accounts’ queued jobs out in turns, not in the order they were sent', { timeout: 60_000 }, async () => {
    const queue = newQueue();
    const [a, b] = [account(), account()];
    await queueJobs(queue, a, 20);
    await queueJobs(queue, b, 20);
    const order = await completeInOrder(queue, 20);
    // First come first served would be twenty of A's. In turns, each account
    // is at most a couple of tasks ahead of the other at any point.
    for (let length = 1; length <= order.length; length += 1) {
      const prefix = order.slice(0, length);
      expect(Math.abs(countOf(prefix, a) - countOf(prefix, b)), order.join(' ')).toBeLessThanOrEqual(2);
    }
  });

  it('finishes a small account’s 2 jobs before the 20th of a large account’s 200 queued ahead of them', { timeout: 120_000 }, async () => {
    const queue = newQueue();
    const [large, small] = [account('scale'), account('starter')];
    await queueJobs(queue, large, 200);
    await queueJobs(queue, small, 2);
    const order = await completeInOrder(queue, 20);
    const twentiethOfLarge = order.findIndex((_, index) => countOf(order.slice(0, index + 1), large) === 20);
    const smallEnds = order.flatMap((id, index) => (id === small.id ? [index] : []));
    expect(smallEnds, order.join(' ')).toHaveLength(2);
    // Absent in the first twenty: twentiethOfLarge is -1 and smallEnds are both before the end.
    if (twentiethOfLarge !== -1) expect(Math.max(...smallEnds), order.join(' ')).toBeLessThan(twentiethOfLarge);
  });

  it('gives a plan the share its configured weight says', { timeout: 60_000 }, async () => {
    const queue = newQueue();
    const weights = parseFairnessWeights('scale=3');
    const [heavy, light] = [account('scale'), account('growth')];
    await queueJobs(queue, heavy, 40, weights);
    await queueJobs(queue, light, 40, weights);
    const order = await completeInOrder(queue, 40);
    // Weights 3 : 1: three of every four tasks are the Scale account's (equal weights would give 20).
    expect(countOf(order, heavy), order.join(' ')).toBeGreaterThanOrEqual(27);
    expect(countOf(order, heavy), order.join(' ')).toBeLessThanOrEqual(33);
  });
});

describe('FAIRNESS_PLAN_WEIGHTS', () => {
  const base = { DATABASE_URL: 'postgres://localhost/x' };
  it('weighs every plan the same unless told otherwise', () => {
    expect(loadConfig(base).fairnessWeights).toEqual({ free: 1, starter: 1, growth: 1, scale: 1 });
    expect(loadConfig({ ...base, FAIRNESS_PLAN_WEIGHTS: 'scale=2, growth=1.5' }).fairnessWeights).toEqual({ free: 1, starter: 1, growth: 1.5, scale: 2 });
  });

  it('refuses what is not plan=weight within Temporal’s range, naming the variable', () => {
    for (const value of ['scale', 'gold=2', 'scale=0', 'scale=1001', 'scale=-1']) {
      expect(() => loadConfig({ ...base, FAIRNESS_PLAN_WEIGHTS: value }), value).toThrow(ConfigError);
    }
    expect(() => loadConfig({ ...base, FAIRNESS_PLAN_WEIGHTS: 'gold=2' })).toThrow(/FAIRNESS_PLAN_WEIGHTS="gold=2" is not accepted/);
  });
});
