// Callers' jobs go ahead of list rows on the research queue (Temporal task
// priority): the list run and its rows' research carry priority 4, a job
// started through the API 1, and with one worker slot a caller's job
// submitted behind a backlog of rows is served before them.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESEARCH_PRIORITY_KEY } from '../../domain/research/fanout.ts';
import { fairnessKeyOf } from '../../domain/research/fairness.ts';
import { listRunWorkflowId } from '../../domain/lists/lists.ts';
import { listCustomer, uploadCsv, waitForListEnd } from '../helpers/lists.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { startWorkerProcess } from '../helpers/worker-process.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let workerProcess: ChildProcess | null = null;
const db = () => stack.orm.em.fork().getConnection();

beforeAll(async () => {
  mail = await startTestMailSandbox();
  stack = await startTestStack({ withWorker: false, apiEnv: { ...mail.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
}, 120_000);
afterAll(async () => {
  if (workerProcess && workerProcess.exitCode === null) {
    const exited = once(workerProcess, 'exit');
    workerProcess.kill('SIGTERM');
    await exited;
  }
  await stack?.stop();
  await mail?.close();
});

describe('research priority', () => {
  it('serves a caller’s job ahead of the list rows queued before it', { timeout: 240_000 }, async () => {
    const owner = await listCustomer(stack, mail, 'growth');
    const people = stack.providerWorld.world.samplePeople({}, 21);
    const csv = ['Name,Email', ...people.slice(0, 20).map((person) => `${person.fullName},${person.email}`)].join('\n');
    const upload = await uploadCsv(owner.client, csv);
    const listId: string = upload.body.list.id;
    // Two workflow tasks and one activity at a time: every task waits its turn in the queue's order.
    workerProcess = startWorkerProcess(stack, { WORKER_ROLES: 'research', WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '2', WORKER_MAX_CONCURRENT_ACTIVITIES: '1', WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE! });
    stack.providerWorld.setLatency({ '*': { meanMs: 40 } });
    expect((await owner.client.post(`/app/api/lists/${listId}/start`, { expectedRows: 20 })).status).toBe(202);
    const listRun = stack.temporal.workflow.getHandle(listRunWorkflowId(listId));
    const ownerFairness = { fairnessKey: fairnessKeyOf(owner.accountId), fairnessWeight: 1 };
    expect((await listRun.describe()).priority).toEqual({ priorityKey: RESEARCH_PRIORITY_KEY.list, ...ownerFairness });
    const rowsQueued = async () => (await db().execute(`select id from research_job where source_ref = ? order by submitted_at`, [listId])) as Array<{ id: string }>;
    const deadline = Date.now() + 60_000;
    while ((await rowsQueued()).length < 8 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const rowsBefore = (await rowsQueued()).map((row) => row.id);
    expect(rowsBefore.length).toBeGreaterThanOrEqual(8);

    const { key, accountId } = await stack.createCustomer('growth');
    const accepted = await stack.api.research(key, { email: people[20]!.email });
    const researchId: string = accepted.body.research_id;
    // Each carries its account's fairness key: within a priority, accounts take turns.
    expect((await stack.temporal.workflow.getHandle(researchId).describe()).priority)
      .toEqual({ priorityKey: RESEARCH_PRIORITY_KEY.api, fairnessKey: fairnessKeyOf(accountId), fairnessWeight: 1 });
    const child = await stack.temporal.workflow.getHandle(rowsBefore[0]!).describe();
    // A row's research inherits the list run's priority and weight, and names its account.
    expect(child.priority).toEqual({ priorityKey: RESEARCH_PRIORITY_KEY.list, ...ownerFairness });

    expect((await stack.api.waitForEnd(key, researchId, 120_000)).body.status).toBe('completed');
    const [caller] = await db().execute(`select completed_at from research_job where id = ?`, [researchId]);
    const rows: Array<{ id: string; completed_at: Date | null }> = await db().execute(`select id, completed_at from research_job where id in (?)`, [rowsBefore]);
    const endedBefore = rows.filter((row) => row.completed_at !== null && row.completed_at < caller!.completed_at);
    // Rows already in flight when it arrived may end first; the backlog behind them may not.
    expect(endedBefore.length, JSON.stringify(rows)).toBeLessThanOrEqual(2);
    expect((await waitForListEnd(owner.client, listId)).body.list.status).toBe('completed');
  });
});
