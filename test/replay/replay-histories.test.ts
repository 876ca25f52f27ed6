// Replays the recorded histories in test/histories/ against the current workflow
// code (docs/operations.md#replaying-a-run): a change to workflows/ that would break runs in
// flight fails here. `record-histories.test.ts` says how the files are made.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { bundleWorkflowCode, Worker, type ReplayResult, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samplePerson, startTestStack, type TestStack } from '../helpers/test-stack.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const HISTORIES_DIR = join(ROOT, 'test', 'histories');
const REORDERED_WORKFLOW = join(import.meta.dirname, 'fixtures', 'reordered-workflow.ts');
const HISTORY_FILES = readdirSync(HISTORIES_DIR).filter((file) => file.endsWith('.json')).sort();

/** Histories carry no workflow id: the file name stands in for it, so a failure names its file. */
function recordedHistories(): HistoryAndWorkflowId[] {
  return HISTORY_FILES.map((file) => ({
    workflowId: basename(file, '.json'),
    history: historyFromJSON(JSON.parse(readFileSync(join(HISTORIES_DIR, file), 'utf8'))),
  }));
}

async function replayAll(options: ReplayWorkerOptions): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  for await (const result of Worker.runReplayHistories(options, recordedHistories())) results.push(result);
  return results;
}

let stack: TestStack;
// Started first: it also routes the SDK's logs (replay workers included) to the quiet test logger.
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

describe('recorded histories', () => {
  it('cover the paths through ResearchWorkflow', () => {
    expect(HISTORY_FILES).toEqual(
      expect.arrayContaining(['completed-full-fetch.json', 'completed-cache-hit.json', 'failed-timeout.json', 'failed-internal-error.json']),
    );
  });

  it('all replay on the current workflow code without non-determinism', async () => {
    const results = await replayAll({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! }, replayName: 'replay-test' });
    const outcomes = results.map(({ workflowId, error }) => ({ workflowId, error: error ? `${error.name}: ${error.message}` : null }));
    expect(outcomes).toEqual(HISTORY_FILES.map((file) => ({ workflowId: basename(file, '.json'), error: null })));
  });

  it('catch an incompatible change: a reordered workflow is a DeterminismViolationError on every history', async () => {
    const bundle = await bundleWorkflowCode({ workflowsPath: REORDERED_WORKFLOW, logger: silentBundler });
    const results = await replayAll({ workflowBundle: bundle, replayName: 'replay-test-reordered' });
    expect(results).toHaveLength(HISTORY_FILES.length);
    for (const result of results) {
      expect(result.error, result.workflowId).toBeInstanceOf(DeterminismViolationError);
    }
  }, 120_000);
});

describe('npm run replay (scripts/replay.ts)', () => {
  let workDir: string;
  beforeAll(() => {
    workDir = mkdtempSync(join(tmpdir(), 'replay-cli-'));
  });
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('replays a finished job fetched from Temporal, saves its history, and reports a saved history that no longer replays', async () => {
    const { key } = await stack.createCustomer('growth');
    const accepted = await stack.api.research(key, { email: samplePerson(stack, { knownTo: 'both' }, 2).email });
    const researchId: string = accepted.body.research_id;
    await stack.temporal.workflow.getHandle(researchId).result();

    const saved = join(workDir, `${researchId}.json`);
    const replay = await runReplayScript([researchId, '--save', saved]);
    expect(replay, replay.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(replay.stdout).toContain(`History of ${researchId}: researchWorkflow,`);
    expect(replay.stdout).toContain('closed: completed');
    expect(replay.stdout).toContain(`OK: ${researchId} replays deterministically`);
    expect(existsSync(saved)).toBe(true);

    const broken = await runReplayScript(['--file', saved, '--workflows', REORDERED_WORKFLOW]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain(`NON-DETERMINISTIC: the current workflow code does not reproduce the history of ${saved}`);
    expect(broken.stdout).not.toContain('OK:');
  }, 180_000);

  it('exits 1 and says why for a job Temporal does not know', async () => {
    const missing = await runReplayScript(['res_' + 'Z'.repeat(24)]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`no workflow res_${'Z'.repeat(24)} in namespace default`);
  });

  it('exits 1 with the usage for no arguments', async () => {
    const usage = await runReplayScript([]);
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('usage: npm run replay');
  });
});

function runReplayScript(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'scripts', 'replay.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const silentBundler = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };
