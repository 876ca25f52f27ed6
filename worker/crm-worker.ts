import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createCrmActivities, type CrmActivityDeps } from '../activities/crm-sync.ts';
import type { Orm } from '../db/orm.ts';
import type { WorkerSlots } from '../lib/config.ts';
import type { WorkerVersioning } from './versioning.ts';
import type { Logger } from '../lib/logger.ts';
import { createCrm } from '../services/crm/crm.ts';
import { crmTaskQueue, reconcileAllCrmSchedules } from '../services/crm/schedules.ts';
import { createMaintenanceWorker } from './maintenance-worker.ts';

/**
 * The CRM sync worker: crmSyncWorkflow and its activities on their own task
 * queue beside the research queue (its per-contact research runs there, as
 * any job does). Null where no CRM app is configured. At start, every
 * integration's Schedule is brought in line with the database.
 */
export async function startCrmWorker(options: {
  connection: NativeConnection;
  namespace: string;
  researchTaskQueue: string;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  orm: Orm;
  temporal: Client;
  env: NodeJS.ProcessEnv;
  publicUrl: string;
  clock: () => Date;
  logger: Logger;
  retry?: CrmActivityDeps['retry'];
  /** CRM runs of one account running at once (config.crmRunsPerAccount); unset: the default. */
  runsPerAccount?: number;
  slots?: WorkerSlots;
  versioning?: WorkerVersioning;
}): Promise<Worker | null> {
  const crm = createCrm({ orm: options.orm, temporal: options.temporal, env: options.env, publicUrl: options.publicUrl, clock: options.clock, researchTaskQueue: options.researchTaskQueue, logger: options.logger,
    runsPerAccount: options.runsPerAccount,
  });
  if (!crm) return null;
  const reconciled = await reconcileAllCrmSchedules(options.temporal, options.orm.em.fork(), options.researchTaskQueue);
  options.logger.info({ integrations: reconciled }, 'CRM Schedules reconciled');
  return createMaintenanceWorker({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: crmTaskQueue(options.researchTaskQueue),
    workflowBundle: options.workflowBundle,
    activities: createCrmActivities({
      orm: options.orm, clock: options.clock, config: crm.config, kits: crm.kits, tokens: crm.tokens, budgets: crm.budgets, publicUrl: options.publicUrl, temporal: options.temporal, retry: options.retry,
      runsPerAccount: crm.runsPerAccount,
    }),
    concurrency: options.slots?.maxActivities ?? 20,
    versioning: options.versioning,
  });
}
