// Replays the recorded runs of the fan-out workflows (test/histories/fanout/:
// list runs and a CRM sync run, recorded by record-fanout-histories.test.ts)
// against the current workflow code, as replay-histories.test.ts does for
// ResearchWorkflow: a change to workflows/ that would break such runs in
// flight fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, bundleWorkflowCode, type ReplayResult, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, expect, it } from 'vitest';
import { installTemporalLogging } from '../../worker/telemetry.ts';
import { createLogger } from '../../lib/logger.ts';

const DIR = join(import.meta.dirname, '..', 'histories', 'fanout');
const FILES = readdirSync(DIR).filter((file) => file.endsWith('.json')).sort();

beforeAll(() => {
  installTemporalLogging(createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent'), 'WARN');
});

it('cover the list run (completed, continued as new, cancelled, out of credits) and CRM sync runs (written back after all the research, as each contact\'s research ends, and in batches)', () => {
  expect(FILES).toEqual([
    'crm-sync-batch-writes.json', 'crm-sync-completed.json', 'crm-sync-written-as-researched.json',
    'list-run-cancelled.json', 'list-run-completed.json', 'list-run-continued.json', 'list-run-out-of-credits.json',
  ]);
});

async function replayAll(options: ReplayWorkerOptions): Promise<ReplayResult[]> {
  const histories: HistoryAndWorkflowId[] = FILES.map((file) => ({
    workflowId: basename(file, '.json'),
    history: historyFromJSON(JSON.parse(readFileSync(join(DIR, file), 'utf8'))),
  }));
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories(options, histories)) results.push(result);
  return results;
}

it('all replay on the current workflow code without non-determinism', async () => {
  const results = await replayAll({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, replayName: 'replay-fanout' });
  expect(results.map(({ workflowId, error }) => ({ workflowId, error: error ? `${error.name}: ${error.message}` : null }))).toEqual(
    FILES.map((file) => ({ workflowId: basename(file, '.json'), error: null })),
  );
}, 120_000);

it('catch an incompatible change: reordered list and CRM runs are a DeterminismViolationError on every history', async () => {
  const bundle = await bundleWorkflowCode({ workflowsPath: join(import.meta.dirname, 'fixtures', 'reordered-fanout.ts'), logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } });
  const results = await replayAll({ workflowBundle: bundle, replayName: 'replay-fanout-reordered' });
  expect(results).toHaveLength(FILES.length);
  for (const result of results) expect(result.error, result.workflowId).toBeInstanceOf(DeterminismViolationError);
}, 120_000);
