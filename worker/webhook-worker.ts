import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createWebhookDeliveryActivities, type WebhookDeliveryDeps } from '../activities/webhook-delivery.ts';
import { webhookTaskQueue } from '../domain/webhook-contract.ts';
import { createMaintenanceWorker } from './schedules.ts';

/**
 * The delivery worker, on its own task queue. Attempts mostly wait on
 * receivers (up to 15 s each), so many run at once.
 */
export function createWebhookWorker(options: {
  connection: NativeConnection;
  namespace: string;
  researchTaskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  deps: WebhookDeliveryDeps;
}): Promise<Worker> {
  return createMaintenanceWorker({
    ...options,
    taskQueue: webhookTaskQueue(options.researchTaskQueue),
    activities: createWebhookDeliveryActivities(options.deps),
    concurrency: 50,
  });
}
