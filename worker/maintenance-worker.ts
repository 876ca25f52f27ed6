import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { temporalWorkerOptions } from '../lib/tracing.ts';
import type { WorkerVersioning } from './versioning.ts';

/**
 * A small worker of its own for one maintenance task queue, beside the
 * research worker on the same connection, so that research backlog never
 * delays it (and it never takes a research worker's slots).
 */
export function createMaintenanceWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  activities: object;
  concurrency: number;
  versioning?: WorkerVersioning;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: options.workflowBundle,
    ...temporalWorkerOptions(),
    activities: options.activities,
    maxConcurrentWorkflowTaskExecutions: options.concurrency,
    maxConcurrentActivityTaskExecutions: options.concurrency,
    maxCachedWorkflows: 10,
    ...options.versioning,
    shutdownGraceTime: '10 seconds',
  });
}
