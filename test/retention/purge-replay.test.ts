// Replays recorded purge histories against the current workflow code, as
// test/replay does for ResearchWorkflow: a change to workflows/purge-workflow.ts
// that would break a purge in flight fails here. To record them again (only on
// purpose, after a deliberate, patched() change):
//
//   RECORD_HISTORIES=1 node_modules/.bin/vitest run test/retention/purge-replay.test.ts
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PURGE_WORKFLOW_TYPE, noPurgeCounts, type PurgeInput, type PurgeReport } from '../../domain/retention/retention.ts';
import { createLogger } from '../../lib/logger.ts';
import { installTemporalLogging } from '../../worker/telemetry.ts';
import { rows } from '../helpers/research-runs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { monthsAfter } from './purge-helpers.ts';

const HISTORIES_DIR = join(import.meta.dirname, 'histories');
const isRecording = process.env.RECORD_HISTORIES === '1';

describe.runIf(isRecording)('recording purge histories', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  /** Runs a purge over `jobs` old job rows; the history of its first run. */
  async function record(name: string, jobs: number, input: PurgeInput): Promise<History> {
    const accountId = await stack.createAccount('growth');
    const now = stack.clock.now();
    for (let index = 0; index < jobs; index++) {
      await rows(stack, `insert into research_job (id, account_id, email, request, status, submitted_at) values (?, ?, 'a@example.com', '{}', 'completed', ?)`, [
        `res_${name}${index}${randomBytes(8).toString('hex')}`,
        accountId,
        monthsAfter(now, -13),
      ]);
    }
    const handle = await stack.temporal.workflow.start(PURGE_WORKFLOW_TYPE, {
      workflowId: `purge-record-${randomBytes(4).toString('hex')}`,
      taskQueue: stack.config.temporal.taskQueue,
      args: [{ ...input, now: now.toISOString() }],
    });
    const report: PurgeReport = await handle.result();
    expect(report.deleted).toEqual({ ...noPurgeCounts(), researchJobs: jobs });
    const history = await stack.temporal.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId).fetchHistory();
    mkdirSync(HISTORIES_DIR, { recursive: true });
    writeFileSync(join(HISTORIES_DIR, `${name}.json`), `${historyToJSON(history)}\n`);
    return history;
  }

  it('records a purge that loops over batches', async () => {
    const history = await record('purge-batches', 5, { batchSize: 2 });
    const scheduled = history.events!.filter((event) => event.activityTaskScheduledEventAttributes).length;
    // Three research-log batches, the error logs, the deleted accounts, the report.
    expect(scheduled).toBe(6);
  });

  it('records a purge that continues as new', async () => {
    const history = await record('purge-continued', 5, { batchSize: 2, stepsPerRun: 1 });
    expect(history.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
  });
});

describe('recorded purge histories', () => {
  // The replay worker's own log lines go to the quiet test logger.
  beforeAll(() => installTemporalLogging(createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent'), 'WARN'));
  const files = readdirSync(HISTORIES_DIR).filter((file) => file.endsWith('.json')).sort();

  it('cover a batch loop and a continue-as-new', () => {
    expect(files).toEqual(['purge-batches.json', 'purge-continued.json']);
  });

  it('replay on the current workflow code without non-determinism', async () => {
    const histories = files.map((file) => ({
      workflowId: basename(file, '.json'),
      history: historyFromJSON(JSON.parse(readFileSync(join(HISTORIES_DIR, file), 'utf8'))),
    }));
    const results: ReplayResult[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, replayName: 'purge-replay' }, histories)) {
      results.push(result);
    }
    expect(results.map(({ workflowId, error }) => ({ workflowId, error: error ? `${error.name}: ${error.message}` : null }))).toEqual(
      files.map((file) => ({ workflowId: basename(file, '.json'), error: null })),
    );
  });
});
