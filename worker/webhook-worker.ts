import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createWebhookDeliveryActivities, type WebhookDeliveryDeps } from '../activities/webhook-delivery.ts';
import { webhookTaskQueue } from '../domain/webhooks/contract.ts';
import type { WorkerSlots } from '../lib/config.ts';
import { temporalWorkerOptions } from '../lib/tracing.ts';
import type { WorkerVersioning } from './versioning.ts';

/**
 * The delivery worker, on its own task queue beside the research worker (same
 * connection), so a slow receiver never takes a research slot nor a research
 * backlog a delivery's. Attempts mostly wait on receivers (up to 15 s each),
 * so many run at once; a burst of job ends is a burst of short workflows, kept cached.
 */
export function createWebhookWorker(options: {
  connection: NativeConnection;
  namespace: string;
  researchTaskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  deps: WebhookDeliveryDeps;
  slots?: WorkerSlots;
  versioning?: WorkerVersioning;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: webhookTaskQueue(options.researchTaskQueue),
    workflowBundle: options.workflowBundle,
    ...temporalWorkerOptions(),
    activities: createWebhookDeliveryActivities(options.deps),
    maxConcurrentWorkflowTaskExecutions: options.slots?.maxWorkflowTasks ?? 50,
    maxConcurrentActivityTaskExecutions: options.slots?.maxActivities ?? 100,
    maxCachedWorkflows: 200,
    ...options.versioning,
    shutdownGraceTime: '10 seconds',
  });
}
