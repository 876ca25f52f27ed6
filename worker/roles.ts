import type { Client } from '@temporalio/client';
import type { NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import type { Orm } from '../db/orm.ts';
import { mailTaskQueue } from '../domain/mail/outbox-contract.ts';
import { webhookTaskQueue } from '../domain/webhooks/contract.ts';
import { createMailer } from '../integrations/mail/mailer.ts';
import type { MailConfig } from '../integrations/mail/config.ts';
import type { WebhookConfig } from '../integrations/webhooks/config.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import { crmTaskQueue } from '../services/crm/schedules.ts';
import { startListRunRelay } from '../services/lists/runs.ts';
import { startWebhookDispatcher } from '../services/webhooks/dispatch.ts';
import { startWorkflowStartRelay } from '../services/research/workflow-start-relay.ts';
import type { ActivityDeps } from '../activities/index.ts';
import { createResearchWorker } from './create-worker.ts';
import { startCrmWorker } from './crm-worker.ts';
import { createMailOutboxWorker, ensureMailOutboxSchedule } from './mail-outbox-schedule.ts';
import { ensurePurgeSchedule } from './purge-schedule.ts';
import { createSweepWorker, ensureSweepSchedule, sweepTaskQueue } from './sweep-schedule.ts';
import { createWebhookWorker } from './webhook-worker.ts';
import type { WorkerRole } from './role-names.ts';
import { workerVersioning } from './versioning.ts';

export { WORKER_ROLES, parseWorkerRoles, type WorkerRole } from './role-names.ts';

/** The task queues a role polls, for its readiness and the operator's view in the Temporal UI. */
export function taskQueuesOf(role: WorkerRole, researchTaskQueue: string): string[] {
  switch (role) {
    case 'research':
      return [researchTaskQueue];
    case 'crm':
      return [crmTaskQueue(researchTaskQueue)];
    case 'webhooks':
      return [webhookTaskQueue(researchTaskQueue)];
    case 'housekeeping':
      return [sweepTaskQueue(researchTaskQueue), mailTaskQueue(researchTaskQueue)];
  }
}

export interface RoleContext {
  config: Config;
  connection: NativeConnection;
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  deps: ActivityDeps & { orm: Orm; temporal: Client };
  mail: MailConfig;
  webhooks: WebhookConfig;
  env: NodeJS.ProcessEnv;
  publicUrl: string;
  logger: Logger;
}

/** What a started role runs: its Workers, and the loops beside them that stop after the Workers have drained. */
export interface StartedRole {
  workers: Record<string, Worker>;
  stopLoops(): Promise<void>;
}

/** Null for the crm role where no CRM app is configured (a process of `all` roles then runs the others). */
export async function startRole(role: WorkerRole, context: RoleContext): Promise<StartedRole | null> {
  const { config, connection, workflowBundle, deps, logger } = context;
  const namespace = config.temporal.namespace;
  const researchTaskQueue = config.temporal.taskQueue;
  const slots = config.workerSlots;
  const pinned = workerVersioning(config.workerVersion, 'pinned');
  const upgraded = workerVersioning(config.workerVersion, 'upgrade');
  switch (role) {
    case 'research': {
      const { worker } = await createResearchWorker({ config, ...deps, publicUrl: context.publicUrl, workflowBundle, connection, slots });
      return { workers: { research: worker }, stopLoops: async () => {} };
    }
    case 'crm': {
      const worker = await startCrmWorker({
        connection, namespace, researchTaskQueue, workflowBundle, orm: deps.orm, temporal: deps.temporal,
        env: context.env, publicUrl: context.publicUrl, clock: deps.clock, logger, slots, versioning: pinned, runsPerAccount: config.crmRunsPerAccount,
      });
      return worker && { workers: { crm: worker }, stopLoops: async () => {} };
    }
    case 'webhooks': {
      const worker = await createWebhookWorker({ connection, namespace, researchTaskQueue, workflowBundle, deps: { orm: deps.orm, webhooks: context.webhooks, clock: deps.clock }, slots, versioning: upgraded });
      // Starts a delivery workflow for each ended job's webhook deliveries (written by a trigger as the job ends).
      // It sends each delivery's first attempt itself; a delivery workflow holds the retries of one that failed.
      const dispatcher = await startWebhookDispatcher({
        orm: deps.orm, temporal: deps.temporal, databaseUrl: config.databaseUrl, researchTaskQueue, logger,
        firstAttempts: { webhooks: context.webhooks, clock: deps.clock }, attemptsPerEndpoint: config.webhookAttemptsPerEndpoint,
      });
      return { workers: { webhooks: worker }, stopLoops: () => dispatcher.stop() };
    }
    case 'housekeeping': {
      const sweeper = await createSweepWorker({ connection, namespace, researchTaskQueue, workflowBundle, deps, versioning: upgraded });
      await ensureSweepSchedule(deps.temporal, researchTaskQueue, config.researchSweepIntervalMs);
      await ensurePurgeSchedule(deps.temporal, researchTaskQueue);
      const mailer = createMailer(context.mail);
      const mailOutbox = await createMailOutboxWorker({ connection, namespace, researchTaskQueue, workflowBundle, deps: { orm: deps.orm, mailer, clock: deps.clock }, versioning: upgraded });
      await ensureMailOutboxSchedule(deps.temporal, researchTaskQueue);
      // Beside the API's: accepted jobs get their workflow even while no API runs.
      const relay = startWorkflowStartRelay({ ...deps, taskQueue: researchTaskQueue, deadlineMs: config.researchDeadlineMs, fairnessWeights: config.fairnessWeights, logger });
      // Lists whose run a crashed or cut-off API did not start.
      const listRelay = startListRunRelay({ ...deps, taskQueue: researchTaskQueue, deadlineMs: config.researchDeadlineMs, fairnessWeights: config.fairnessWeights, logger });
      return {
        workers: { sweeper, mailOutbox },
        async stopLoops() {
          await listRelay.stop();
          await relay.stop();
          mailer.close();
        },
      };
    }
  }
}
