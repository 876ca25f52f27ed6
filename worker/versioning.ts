import type { WorkerOptions } from '@temporalio/worker';
import type { Config } from '../lib/config.ts';

/** What a Worker gets of Worker Versioning: nothing when unversioned. */
export type WorkerVersioning = Pick<WorkerOptions, 'workerDeploymentOptions'>;

/**
 * Every Worker of a versioned build polls as one version of the Worker
 * Deployment (docs/deploy.md#rolling-out-workflow-code). A workflow stays on
 * the version it started on (PINNED): a CRM run or a list started on build A
 * finishes on A while new ones start on B, so a change of workflow code needs
 * no `patched()` for them. Workflows that retry for long or repeat for ever
 * (webhook deliveries, the sweeper, the purge, the mail outbox) move to the
 * current version instead (AUTO_UPGRADE, in their files), so that an old
 * build can drain.
 */
export function workerVersioning(version: Config['workerVersion']): WorkerVersioning {
  if (!version) return {};
  return { workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' } };
}
