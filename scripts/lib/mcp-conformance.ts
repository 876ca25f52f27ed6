// Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in package.json) against a running /mcp, as a child process: the
// scenarios a protocol revision requires (`--requirements`), judged against an
// expected-failures baseline, with the API key added by mcp-conformance-preload.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CONFORMANCE_REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type ConformanceRevision = (typeof CONFORMANCE_REVISIONS)[number];

export interface ConformanceCheck {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  description: string;
  errorMessage?: string;
}

export interface ConformanceRun {
  /** The MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: string;
  /** The Authorization header every request to `url` carries (the suite has no option for it). */
  authorization: string;
  revision: ConformanceRevision;
  /** A YAML baseline (`server:` scenarios or `scenario:check-id` entries) of what may fail; anything else failing fails the run. */
  expectedFailures: string;
  timeoutMs?: number;
}

export interface ConformanceResult {
  /** 0 when every scenario passed or failed only as the baseline says (and no baselined one passed). */
  exitCode: number | null;
  /** The suite's own report from `=== SUMMARY ===` on: each scenario's checks passed and failed, and the baseline's verdict. */
  summary: string;
  output: string;
  /** Each scenario run, with its checks. */
  scenarios: Map<string, ConformanceCheck[]>;
}

const requireHere = createRequire(import.meta.url);
const SUITE = join(requireHere.resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js');
const PRELOAD = new URL('./mcp-conformance-preload.ts', import.meta.url).pathname;

/** The version of the suite installed (the one package.json pins). */
export function conformanceSuiteVersion(): string {
  return (requireHere('@modelcontextprotocol/conformance/package.json') as { version: string }).version;
}

export async function runConformanceSuite(run: ConformanceRun): Promise<ConformanceResult> {
  const outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  try {
    const args = ['--import', PRELOAD, SUITE, 'server', '--url', run.url, '--requirements', run.revision, '--expected-failures', run.expectedFailures, '-o', outputDir];
    // The key goes by environment, never in the arguments (process lists, the suite's output).
    const env = { ...process.env, CONFORMANCE_TARGET_URL: run.url, CONFORMANCE_AUTHORIZATION: run.authorization };
    const { exitCode, output: colored } = await runNode(args, env, run.timeoutMs ?? 300_000);
    const output = colored.replace(/\x1b\[[0-9;]*m/g, '');
    const summaryAt = output.indexOf('=== SUMMARY ===');
    return { exitCode, output, summary: summaryAt >= 0 ? output.slice(summaryAt) : output, scenarios: readScenarios(outputDir) };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

/** Asynchronous on purpose: the API under test may run in this very process, and must keep answering. */
function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ exitCode: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, output });
    });
  });
}

/** The suite writes each scenario's checks to <dir>/server-<scenario>-<timestamp>/checks.json. */
function readScenarios(outputDir: string): Map<string, ConformanceCheck[]> {
  const scenarios = new Map<string, ConformanceCheck[]>();
  for (const entry of readdirSync(outputDir)) {
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    scenarios.set(scenario, JSON.parse(readFileSync(join(outputDir, entry, 'checks.json'), 'utf8')) as ConformanceCheck[]);
  }
  return scenarios;
}
