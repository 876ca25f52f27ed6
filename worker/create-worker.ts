import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import type { Config } from '../lib/config.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface ResearchWorkerOptions extends ActivityDeps {
  config: Config;
  /** A pre-built bundle (tests build it once per run); else the worker bundles `workflows/`. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/**
 * The research worker. Jobs spend most of their time waiting on providers and
 * the model, so many activities run at once on one process.
 */
export async function createResearchWorker(options: ResearchWorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.config.temporal.address });
  const worker = await Worker.create({
    connection,
    namespace: options.config.temporal.namespace,
    taskQueue: options.config.temporal.taskQueue,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities(options),
    maxConcurrentActivityTaskExecutions: 400,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxCachedWorkflows: 1000,
    shutdownGraceTime: '10 seconds',
  });
  return { worker, connection };
}
