import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ABANDONED_JOB_AFTER_MS,
  ERROR_LOG_RETENTION_MONTHS,
  RESEARCH_LOG_RETENTION_MONTHS,
  monthsBefore,
  type PurgeBatch,
} from '../../domain/retention/retention.ts';

// The purge's SQL (docs/operations.md#the-purge). Every step selects what is still
// there, so a step cut off anywhere (worker killed, activity retried) is
// finished by the next call and nothing is deleted twice: a job's history is
// deleted (and marked) before its row, and rows go by single statements.

/** Deletes workflow histories on the Temporal server (activities/purge.ts). */
export interface HistoryEraser {
  /** True when the server held the history and deleted it; false when it had none (retention, or deleted before). */
  erase(workflowId: string): Promise<boolean>;
}

/** Histories deleted side by side: a daily batch should not take minutes, nor flood the server. */
const HISTORY_DELETES_AT_ONCE = 8;

/**
 * Deletes the histories of these jobs and marks each job at once: the server
 * deletes a closed workflow's history some seconds after accepting the
 * request and accepts it again meanwhile, so the mark is what keeps a rerun
 * from deleting (and counting) it twice.
 */
async function eraseHistories(em: EntityManager, eraser: HistoryEraser, jobIds: string[], now: Date): Promise<number> {
  let erased = 0;
  let next = 0;
  const lane = async () => {
    while (next < jobIds.length) {
      const id = jobIds[next++]!;
      if (await eraser.erase(id)) erased += 1;
      await em.execute('update research_job set history_deleted_at = ? where id = ? and history_deleted_at is null', [now, id]);
    }
  };
  // Settled, not raced: when one deletion fails, the others in flight are still marked before the step fails.
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(HISTORY_DELETES_AT_ONCE, jobIds.length) }, lane));
  const failure = lanes.find((each) => each.status === 'rejected');
  if (failure) throw failure.reason;
  return erased;
}

type JobRef = { id: string; history_deleted_at: string | null };

/** Histories first, then the rows: a cut between the two leaves rows whose history is already gone, which the next call finishes. */
async function deleteJobs(
  em: EntityManager,
  eraser: HistoryEraser,
  jobs: JobRef[],
  now: Date,
): Promise<{ jobs: number; histories: number; webhookDeliveries: number }> {
  if (jobs.length === 0) return { jobs: 0, histories: 0, webhookDeliveries: 0 };
  const ids = jobs.map((job) => job.id);
  const histories = await eraseHistories(em, eraser, jobs.filter((job) => job.history_deleted_at === null).map((job) => job.id), now);
  // A completion webhook's payload is its job's status reply: it goes with the job.
  const deliveries = await em.execute('delete from webhook_delivery where research_id in (?) returning id', [ids]);
  const deleted = await em.execute('delete from research_job where id in (?) returning id', [ids]);
  return { jobs: deleted.length, histories, webhookDeliveries: deliveries.length };
}

/** Research logs: job rows and their histories, 12 months after submission, whatever the job's state (its deadline is 3 minutes). */
export async function purgeResearchLogs(em: EntityManager, eraser: HistoryEraser, now: Date, batchSize: number): Promise<PurgeBatch> {
  const cutoff = monthsBefore(now, RESEARCH_LOG_RETENTION_MONTHS);
  const jobs: JobRef[] = await em.execute(
    'select id, history_deleted_at from research_job where submitted_at < ? order by submitted_at limit ?',
    [cutoff, batchSize],
  );
  const deleted = await deleteJobs(em, eraser, jobs, now);
  // Test events belong to no job: they go by their own age.
  const testEvents = await em.execute(
    'delete from webhook_delivery where id in (select id from webhook_delivery where research_id is null and created_at < ? limit ?) returning id',
    [cutoff, batchSize],
  );
  // An uploaded list (its cells are the prospects' data) is part of its jobs' research log; its rows go with it (cascade).
  const lists = await em.execute(
    `delete from prospect_list where id in (select id from prospect_list where created_at < ? and status not in ('queued', 'running', 'cancelling') limit ?) returning id`,
    [cutoff, batchSize],
  );
  return {
    deleted: {
      researchJobs: deleted.jobs,
      researchHistories: deleted.histories,
      webhookDeliveries: deleted.webhookDeliveries + testEvents.length,
      prospectLists: lists.length,
    },
    hasMore: jobs.length === batchSize || testEvents.length === batchSize || lists.length === batchSize,
  };
}

/**
 * Error logs: the error details of a failed job are in its Temporal history
 * (failures, messages, stack traces); the row keeps only the spec's public
 * `error` code, part of the research log and of the reply until the row goes.
 * The application's other error records are the SMTP replies kept on
 * outbox mail (`last_error`), counted from when the mail was sent or given up.
 */
export async function purgeErrorLogs(em: EntityManager, eraser: HistoryEraser, now: Date, batchSize: number): Promise<PurgeBatch> {
  const cutoff = monthsBefore(now, ERROR_LOG_RETENTION_MONTHS);
  const failedJobs: Array<{ id: string }> = await em.execute(
    `select id from research_job where status = 'failed' and history_deleted_at is null and completed_at < ? order by completed_at limit ?`,
    [cutoff, batchSize],
  );
  const errorHistories = await eraseHistories(em, eraser, failedJobs.map((row) => row.id), now);
  const mailErrors = await em.execute(
    `update email_outbox set last_error = null
      where id in (select id from email_outbox where last_error is not null and coalesce(sent_at, failed_at) < ? limit ?) returning id`,
    [cutoff, batchSize],
  );
  return {
    deleted: { errorHistories, mailErrors: mailErrors.length },
    hasMore: failedJobs.length === batchSize || mailErrors.length === batchSize,
  };
}

/** The tombstone's owner address: not personal, unique (the column is), and undeliverable (RFC 2606 `.invalid`). */
export const tombstoneEmail = (accountId: number) => `deleted-account-${accountId}@deleted.invalid`;

/** Called in the tombstone's transaction while the former address is still known, before it is removed. */
export type AccountDeletedNotice = (tx: EntityManager, account: { id: number; formerEmail: string; deletedAt: Date }) => Promise<void>;

/**
 * One bounded step of finishing a deleted account (services/accounts/deletion.ts):
 * the oldest request whose jobs have all ended loses, in this order, its jobs
 * (and histories), companies (and decision makers), prospects, keys and
 * product contexts, a batch per call; when nothing is left, its row becomes a
 * tombstone. An account with a job still running waits for a later run.
 */
export async function purgeDeletedAccounts(
  em: EntityManager,
  eraser: HistoryEraser,
  now: Date,
  batchSize: number,
  notice: AccountDeletedNotice,
): Promise<PurgeBatch> {
  const abandonedBefore = new Date(now.getTime() - ABANDONED_JOB_AFTER_MS);
  const [account]: Array<{ id: number }> = await em.execute(
    `select a.id from account a
      where a.deletion_requested_at is not null and a.deleted_at is null
        and not exists (select 1 from research_job j
                         where j.account_id = a.id and j.status in ('queued', 'processing') and j.submitted_at >= ?)
      order by a.deletion_requested_at, a.id limit 1`,
    [abandonedBefore],
  );
  if (!account) return { deleted: {}, hasMore: false };
  const accountId = account.id;

  const jobs: JobRef[] = await em.execute(
    'select id, history_deleted_at from research_job where account_id = ? order by submitted_at limit ?',
    [accountId, batchSize],
  );
  if (jobs.length > 0) {
    const deleted = await deleteJobs(em, eraser, jobs, now);
    return { deleted: { accountJobs: deleted.jobs, accountHistories: deleted.histories, webhookDeliveries: deleted.webhookDeliveries }, hasMore: true };
  }

  const companies: Array<{ id: number }> = await em.execute('select id from company where account_id = ? limit ?', [accountId, batchSize]);
  if (companies.length > 0) {
    const ids = companies.map((row) => row.id);
    // Decision makers would go with their company (cascade); deleted first, in the same transaction, to be counted.
    const deleted = await em.transactional(async (tx) => ({
      decisionMakers: (await tx.execute('delete from decision_maker where company_id in (?) returning id', [ids])).length,
      companies: (await tx.execute('delete from company where id in (?) returning id', [ids])).length,
    }));
    return { deleted, hasMore: true };
  }

  for (const [table, count] of [
    ['prospect', 'prospects'],
    ['api_key', 'apiKeys'],
    ['product_context', 'productContexts'],
    // Endpoint URLs and signing secrets; their deliveries and attempts go with them (cascade).
    ['webhook_endpoint', 'webhookEndpoints'],
    // Uploaded lists and their rows (cascade); none runs by now (no job of the account is running).
    ['prospect_list', 'prospectLists'],
  ] as const) {
    const deleted = await em.execute(
      `delete from "${table}" where id in (select id from "${table}" where account_id = ? limit ?) returning id`,
      [accountId, batchSize],
    );
    if (deleted.length > 0) return { deleted: { [count]: deleted.length }, hasMore: true };
  }

  const isTombstoned = await em.transactional(async (tx) => {
    const [row]: Array<{ owner_email: string; deleted_at: string | null; rows_left: string }> = await tx.execute(
      `select owner_email, deleted_at,
              (select count(*) from research_job where account_id = a.id) + (select count(*) from company where account_id = a.id)
              + (select count(*) from prospect where account_id = a.id) + (select count(*) from api_key where account_id = a.id)
              + (select count(*) from product_context where account_id = a.id)
              + (select count(*) from webhook_endpoint where account_id = a.id)
              + (select count(*) from prospect_list where account_id = a.id) as rows_left
         from account a where id = ? for update`,
      [accountId],
    );
    // A late write (a job's results stored after its deadline) is taken by the next call.
    if (!row || row.deleted_at !== null || Number(row.rows_left) > 0) return false;
    await notice(tx, { id: accountId, formerEmail: row.owner_email, deletedAt: now });
    // The owner's sign-in (better-auth's user: e-mail, name; its sessions and credentials cascade) goes too.
    await tx.execute('delete from auth_user where id = (select owner_user_id from account where id = ?)', [accountId]);
    await tx.execute(
      `update account set owner_email = ?, deleted_at = ?, language = 'en', usage_alerts_enabled = true, pending_plan = null where id = ?`,
      [tombstoneEmail(accountId), now, accountId],
    );
    return true;
  });
  return { deleted: { accountsDeleted: isTombstoned ? 1 : 0 }, hasMore: true };
}
