import { Context } from '@temporalio/activity';
import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { Orm } from '../db/orm.ts';
import { accountDeletedEmail } from '../integrations/mail/templates/index.ts';
import { createLogger, type Logger } from '../lib/logger.ts';
import type { PurgeBatch, PurgeReport } from '../domain/retention/retention.ts';
import {
  purgeDeletedAccounts,
  purgeErrorLogs,
  purgeResearchLogs,
  type AccountDeletedNotice,
  type HistoryEraser,
} from '../services/retention/purge.ts';
import { enqueueMail, nudgeMailOutbox } from '../services/mail/outbox.ts';

export interface PurgeDeps {
  orm: Orm;
  clock: () => Date;
  temporal: Client;
  /** Where the purge's summary line goes; the worker's JSON logger by default. */
  purgeLogger?: Logger;
  /** Stands in for the Temporal server's history deletion (tests cut a batch short with it). */
  historyEraser?: HistoryEraser;
}

/** gRPC status NOT_FOUND: the server holds no such execution (namespace retention, or deleted before). */
const GRPC_NOT_FOUND = 5;

/** Deletes the latest run of a workflow through WorkflowService.DeleteWorkflowExecution (a running one is terminated first). */
export function temporalHistoryEraser(client: Client): HistoryEraser {
  return {
    async erase(workflowId) {
      try {
        await client.workflowService.deleteWorkflowExecution({ namespace: client.options.namespace, workflowExecution: { workflowId } });
        return true;
      } catch (error) {
        if (isGrpcServiceError(error) && error.code === GRPC_NOT_FOUND) return false;
        throw error;
      }
    },
  };
}

/**
 * The confirmation e-mail to the former address, written to the outbox in the
 * tombstone's transaction: sent once, and only if the deletion commits.
 */
const accountDeletedNotice: AccountDeletedNotice = async (tx, account) => {
  await enqueueMail(tx, {
    accountId: account.id,
    dedupeKey: `account-deleted:${account.id}`,
    message: accountDeletedEmail({ to: account.formerEmail }),
  });
};

export interface PurgeStepInput {
  /** The run's "now", ISO 8601, fixed for the whole run. */
  now: string;
  batchSize: number;
}

/** The daily purge's activities (workflows/purge-workflow.ts): each one bounded step, safe to repeat. */
export function createPurgeActivities({ orm, clock, temporal, purgeLogger, historyEraser }: PurgeDeps) {
  const eraser = historyEraser ?? temporalHistoryEraser(temporal);
  const logger = purgeLogger ?? createLogger('purge');
  return {
    async readPurgeClock(): Promise<string> {
      return clock().toISOString();
    },
    async purgeResearchLogs({ now, batchSize }: PurgeStepInput): Promise<PurgeBatch> {
      return purgeResearchLogs(orm.em.fork(), eraser, new Date(now), batchSize);
    },
    async purgeErrorLogs({ now, batchSize }: PurgeStepInput): Promise<PurgeBatch> {
      return purgeErrorLogs(orm.em.fork(), eraser, new Date(now), batchSize);
    },
    async purgeDeletedAccounts({ now, batchSize }: PurgeStepInput): Promise<PurgeBatch> {
      const batch = await purgeDeletedAccounts(orm.em.fork(), eraser, new Date(now), batchSize, accountDeletedNotice);
      // The confirmation is committed: send it now rather than at the outbox Schedule's next minute (best effort).
      if (batch.deleted.accountsDeleted) await nudgeMailOutbox(temporal, Context.current().info.taskQueue, logger);
      return batch;
    },
    async reportPurge(report: PurgeReport): Promise<void> {
      logger.info({ purgeAsOf: report.now, deleted: report.deleted }, 'purge finished');
    },
  };
}
