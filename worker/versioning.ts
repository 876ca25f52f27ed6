import type { WorkerOptions } from '@temporalio/worker';
import type { Config } from '../lib/config.ts';

/** What a Worker gets of Worker Versioning: nothing when unversioned. */
export type WorkerVersioning = Pick<WorkerOptions, 'workerDeploymentOptions'>;

/**
 * Every Worker of a versioned build polls as one version of the Worker
 * Deployment (docs/deploy.md#rolling-out-a-new-image), with the behavior of
 * the workflows on its task queue. `pinned` (research jobs, lists, CRM runs):
 * a workflow stays on the version it started on, so a run started on build A
 * finishes on A while new ones start on B, and a change of workflow code
 * needs no `patched()` for them. `upgrade` (webhook deliveries, which retry
 * for a day, and the housekeeping workflows, which repeat for ever): they
 * move to the current version at their next task, so that an old build can
 * drain. Set per Worker: a behavior set in workflow code fails every task on
 * an unversioned worker.
 */
export function workerVersioning(version: Config['workerVersion'], behavior: 'pinned' | 'upgrade'): WorkerVersioning {
  if (!version) return {};
  return { workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: behavior === 'pinned' ? 'PINNED' : 'AUTO_UPGRADE' } };
}
