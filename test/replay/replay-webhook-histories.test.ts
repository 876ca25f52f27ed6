// Replays the recorded deliveries of webhookDeliveryWorkflow
// (test/histories/webhooks/, recorded by record-webhook-histories.test.ts)
// against the current workflow code: a change that would break deliveries
// in flight (they retry for about a day) fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { beforeAll, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.ts';
import { installTemporalLogging } from '../../worker/telemetry.ts';

const DIR = join(import.meta.dirname, '..', 'histories', 'webhooks');
const FILES = readdirSync(DIR).filter((file) => file.endsWith('.json')).sort();

beforeAll(() => {
  installTemporalLogging(createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent'), 'WARN');
});

it('cover a delivery at the first attempt, one after a retry, one failed for good, and the retries after the dispatcher’s first attempt', () => {
  expect(FILES).toEqual(['delivered-after-retry.json', 'delivered.json', 'failed-gone.json', 'retried-after-first-attempt.json']);
});

it('all replay on the current workflow code without non-determinism', async () => {
  const histories: HistoryAndWorkflowId[] = FILES.map((file) => ({
    workflowId: basename(file, '.json'),
    history: historyFromJSON(JSON.parse(readFileSync(join(DIR, file), 'utf8'))),
  }));
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, replayName: 'replay-webhooks' }, histories)) {
    results.push(result);
  }
  expect(results.map(({ workflowId, error }) => ({ workflowId, error: error ? `${error.name}: ${error.message}` : null }))).toEqual(
    FILES.map((file) => ({ workflowId: basename(file, '.json'), error: null })),
  );
}, 120_000);
