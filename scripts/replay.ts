// `npm run replay`: replays one research job's recorded history against the
// CURRENT workflow code, which is how a developer finds out whether a change to
// workflows/ would break runs already in flight (docs/architecture.md#temporal-traps).
//
//   npm run replay -- <research_id> [--save history.json]   fetch from Temporal (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE)
//   npm run replay -- --file history.json                   a saved history (this --save, `temporal workflow show -o json`, the UI's download)
//   … --workflows path/to/workflows.ts                       another workflows entry point (default: workflows/index.ts)
//
// Exit 0: the code replays the history deterministically. Exit 1: non-determinism
// (DeterminismViolationError), any other replay failure, or a usage error.
// The verdict goes to stdout, failures and their messages to stderr.
import { connectionOptions, loadTemporalConnection } from '../lib/temporal-connection.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection, isGrpcServiceError, WorkflowNotFoundError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { historyFromJSON, historyToJSON, type History } from '@temporalio/common/lib/proto-utils.js';
import { DefaultLogger, ReplayError, Runtime, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../worker/create-worker.ts';
import { ConfigError, loadDotEnv } from '../lib/env.ts';

/** A wrong command line: the message, then the usage. */
class UsageError extends Error {}
/** A failure to explain in one line (unreachable server, unknown job, unreadable file), without a stack. */
class ReportedError extends Error {}

/** gRPC status of GetWorkflowExecutionHistory for an unknown (or expired) workflow id. */
const GRPC_NOT_FOUND = 5;

const USAGE = 'usage: npm run replay -- <research_id> [--save history.json] | --file history.json   [--workflows path]';

interface Source {
  history: History;
  /** Names the run in the output; histories carry no workflow id, so a file's name stands in. */
  label: string;
  workflowId: string;
}

function parseCommandLine() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        file: { type: 'string' },
        save: { type: 'string' },
        workflows: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function main(): Promise<void> {
  const { positionals, values } = parseCommandLine();
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [researchId, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  if (values.file && values.save) throw new UsageError('--save only applies to a history fetched from Temporal');
  if (!values.file && !researchId) throw new UsageError('give a research_id or --file');

  const source = values.file ? readHistoryFile(values.file, researchId) : await fetchHistory(researchId!, values.save);
  const workflowsPath = values.workflows ? resolve(values.workflows) : WORKFLOWS_PATH;
  process.stdout.write(`${describe(source)}\nReplaying against ${workflowsPath} …\n`);

  // The SDK logs worker start and stop at INFO, and the core repeats a non-determinism
  // as a WARN: the verdict below says it once, so only errors get through.
  Runtime.install({
    logger: new DefaultLogger('WARN'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
  try {
    await Worker.runReplayHistory({ workflowsPath, interceptors: { workflowModules: WORKFLOW_INTERCEPTOR_MODULES }, replayName: 'research-replay' }, source.history, source.workflowId);
  } catch (error) {
    process.exitCode = 1;
    if (error instanceof DeterminismViolationError) {
      process.stderr.write(
        `NON-DETERMINISTIC: the current workflow code does not reproduce the history of ${source.label}.\n` +
          `  ${coreReason(error.message)}\n` +
          'Runs started before this change would fail on their next workflow task. Gate the change with patched() ' +
          'or give the new code a new workflow type.\n',
      );
    } else if (error instanceof ReplayError) {
      process.stderr.write(`REPLAY FAILED for ${source.label}: ${error.message}\n`);
    } else {
      throw error;
    }
    return;
  }
  process.stdout.write(`OK: ${source.label} replays deterministically on the current workflow code.\n`);
}

/**
 * The core wraps its verdict (`[TMPRL1100] Nondeterminism error: … HistoryEvent(id: 5, TimerStarted)`)
 * in a debug dump of the failure; that inner message is what a developer needs.
 */
function coreReason(message: string): string {
  return message.match(/message: "((?:[^"\\]|\\.)*)"/)?.[1] ?? message;
}

function readHistoryFile(path: string, researchId: string | undefined): Source {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ReportedError(`cannot read ${path}: ${(error as Error).message}`);
  }
  let history: History;
  try {
    history = historyFromJSON(json);
  } catch (error) {
    throw new ReportedError(`${path} is not a Temporal history in JSON: ${(error as Error).message}`);
  }
  return { history, label: researchId ?? path, workflowId: researchId ?? path };
}

async function fetchHistory(researchId: string, savePath: string | undefined): Promise<Source> {
  // The same connection settings as the API and the workers (TEMPORAL_*, temporal.toml profiles, mTLS, API keys).
  let settings: ReturnType<typeof loadTemporalConnection>;
  try {
    settings = loadTemporalConnection(process.env);
  } catch (error) {
    throw new ReportedError((error as Error).message);
  }
  const namespace = settings.namespace;
  let connection: Connection;
  try {
    connection = await Connection.connect({ ...connectionOptions(settings), connectTimeout: 5_000 });
  } catch (error) {
    throw new ReportedError(`cannot reach Temporal at ${settings.describe()}: ${(error as Error).message}`);
  }
  try {
    const client = new Client({ connection, namespace });
    const history = await client.workflow.getHandle(researchId).fetchHistory();
    if (savePath) {
      writeFileSync(savePath, `${historyToJSON(history)}\n`);
      process.stdout.write(`Saved the history of ${researchId} to ${savePath}.\n`);
    }
    return { history, label: researchId, workflowId: researchId };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError || (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND)) {
      throw new ReportedError(`no workflow ${researchId} in namespace ${namespace} at ${settings.address} (closed runs are kept only for the namespace's retention period)`);
    }
    throw error;
  } finally {
    await connection.close();
  }
}

/** One line about the run: its type, size and how it ended (a running job replays up to now). */
function describe({ history, label }: Source): string {
  const events = history.events ?? [];
  const type = events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? 'unknown type';
  const last = events.at(-1);
  // Each event carries one `…EventAttributes` field named after its type.
  const lastType = last && Object.entries(last).find(([key, value]) => key.endsWith('EventAttributes') && value != null)?.[0].replace(/EventAttributes$/, '');
  const closed = lastType?.match(/^workflowExecution(Completed|Failed|TimedOut|Canceled|Terminated|ContinuedAsNew)$/)?.[1];
  // ResearchWorkflow returns 'completed' or 'failed': a failed job is still a completed run.
  const result = last?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
  const returned = result ? ` (returned ${JSON.stringify(defaultPayloadConverter.fromPayload(result))})` : '';
  const state = closed ? `closed: ${closed.toLowerCase()}${returned}` : `still running (replaying the events so far), last event ${lastType ?? 'none'}`;
  return `History of ${label}: ${type}, ${events.length} events, ${state}.`;
}

try {
  loadDotEnv();
  await main();
} catch (error) {
  process.exitCode = 1;
  if (error instanceof ConfigError) process.stderr.write(`replay: configuration: ${error.problems.join('; ')}\n`);
  else if (error instanceof UsageError) process.stderr.write(`${error.message}\n${USAGE}\n`);
  else if (error instanceof ReportedError) process.stderr.write(`${error.message}\n`);
  else process.stderr.write(`replay failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
}
