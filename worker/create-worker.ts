import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import type { Config, WorkerSlots } from '../lib/config.ts';
import { connectionOptions } from '../lib/temporal-connection.ts';
import { temporalWorkerOptions } from '../lib/tracing.ts';
import { workerVersioning } from './versioning.ts';

/**
 * In-flight activities get the grace time to finish after SIGTERM, then are
 * cancelled (and retried on another worker). No force time: with one, the
 * SDK's shutdown failed ("Worker still in use") when an activity was still
 * running at the grace time's end; the supervisor's own deadline (the pod's
 * termination grace period: delay + grace + 10 s) is the last word.
 */
export function shutdownTimes(config: Pick<Config, 'shutdown'>): Pick<WorkerOptions, 'shutdownGraceTime'> {
  return { shutdownGraceTime: config.shutdown.graceMs };
}

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/**
 * Bundled with the workflows wherever they are bundled (the worker, the
 * image's prebuilt bundle, the tests, the replays): a run's tracing is
 * decided by its own start header (worker/workflow-interceptors.ts), so every
 * bundle must carry the same interceptors to replay any run.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [fileURLToPath(new URL('./workflow-interceptors.ts', import.meta.url))];

export interface ResearchWorkerOptions extends ActivityDeps {
  config: Config;
  /** A pre-built bundle (tests build it once per run); else the worker bundles `workflows/`. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The process's connection, shared by its Workers; a new one when omitted (tests). */
  connection?: NativeConnection;
  slots?: WorkerSlots;
}

/**
 * The research worker. Jobs spend most of their time waiting on providers and
 * the model, so many activities run at once on one process.
 */
export async function createResearchWorker(options: ResearchWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = options.connection ?? (await NativeConnection.connect(connectionOptions(options.config.temporal.connection)));
  const tracing = temporalWorkerOptions();
  const worker = await Worker.create({
    connection,
    namespace: options.config.temporal.namespace,
    taskQueue: options.config.temporal.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    ...tracing,
    // A prebuilt bundle has them already; one bundled here needs them named.
    ...(options.workflowBundle ? {} : { interceptors: { ...tracing.interceptors, workflowModules: WORKFLOW_INTERCEPTOR_MODULES } }),
    activities: createActivities(options),
    maxConcurrentActivityTaskExecutions: options.slots?.maxActivities ?? 400,
    maxConcurrentWorkflowTaskExecutions: options.slots?.maxWorkflowTasks ?? 100,
    maxCachedWorkflows: 1000,
    ...shutdownTimes(options.config),
    ...workerVersioning(options.config.workerVersion, 'pinned'),
  });
  return { worker, connection };
}
