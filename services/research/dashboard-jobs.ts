import { setTimeout as delay } from 'node:timers/promises';
import { jobQueueWait, type JobQueueWait } from '../../domain/research/queue-estimate.ts';
import { medianCompletionSeconds } from './estimates.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { IAccount } from '../../db/entities/account.ts';
import { JOBS_PAGE_SIZE, type TJobFilter } from '../../domain/dashboard/schemas.ts';
import type { JobDetail, JobListItem, JobPage } from '../../domain/dashboard/replies.ts';
import { PROGRESS_QUERY, type ResearchProgress } from '../../domain/research/contract.ts';
import { hasEnded, type ResearchJobStatus } from '../../domain/research/job-status.ts';
import { iso } from '../accounts/dashboard-keys.ts';
import type { ResearchSource } from '../../domain/research/fanout.ts';

/**
 * The account's research jobs, newest first, one page at a time (index research_job_account_submitted_idx);
 * `email` and `pageSize` for callers other than the Jobs page (the MCP tool list_research).
 */
export async function listJobs(em: EntityManager, account: IAccount, filter: TJobFilter & { email?: string; pageSize?: number }): Promise<JobPage> {
  const conditions = ['j.account_id = ?'];
  const params: unknown[] = [account.id];
  if (filter.status) {
    conditions.push('j.status = ?');
    params.push(filter.status);
  }
  if (filter.keyId) {
    conditions.push('j.api_key_id = ?');
    params.push(filter.keyId);
  }
  if (filter.email) {
    conditions.push('j.email = ?');
    params.push(filter.email);
  }
  const where = conditions.join(' and ');
  const connection = em.getConnection();
  const pageSize = filter.pageSize ?? JOBS_PAGE_SIZE;
  const offset = (filter.page - 1) * pageSize;
  const [rows, counted] = await Promise.all([
    connection.execute<Array<Record<string, unknown>>>(
      `select j.id, j.email, j.status, j.error, j.api_key_id, j.submitted_at, j.completed_at, k.display_prefix, p.name as product_name,
              j.source, j.source_ref, pl.name as list_name
       from research_job j
       left join api_key k on k.id = j.api_key_id
       left join product_context p on p.id = j.product_id
       left join prospect_list pl on j.source = 'list' and pl.id = j.source_ref
       where ${where}
       order by j.submitted_at desc, j.id desc
       limit ${pageSize} offset ${offset}`,
      params,
    ),
    connection.execute<Array<{ total: number }>>(`select count(*)::int as total from research_job j where ${where}`, params),
  ]);
  const total = counted[0]?.total ?? 0;
  return {
    jobs: rows.map(toListItem),
    page: filter.page,
    pageCount: Math.max(1, Math.ceil(total / pageSize)),
    total,
  };
}

/** One job of the account, or null (another account's id is unknown here, docs/decisions.md#the-dashboard). */
export async function jobDetail(em: EntityManager, temporal: Client, account: IAccount, jobId: string): Promise<JobDetail | null> {
  const rows = await em.getConnection().execute<Array<Record<string, unknown>>>(
    `select j.id, j.email, j.status, j.error, j.api_key_id, j.submitted_at, j.completed_at, j.request, j.completed_reply,
            k.display_prefix, p.name as product_name, j.source, j.source_ref, pl.name as list_name, j.trace_context,
            exists (select 1 from credit_ledger_entry l where l.research_id = j.id and l.kind = 'refund') as is_refunded
     from research_job j
     left join api_key k on k.id = j.api_key_id
     left join product_context p on p.id = j.product_id
     left join prospect_list pl on j.source = 'list' and pl.id = j.source_ref
     where j.id = ? and j.account_id = ?`,
    [jobId, account.id],
  );
  const row = rows[0];
  if (!row) return null;
  const item = toListItem(row);
  const reply = row.completed_reply ? (JSON.parse(String(row.completed_reply)) as { data?: unknown; _meta?: unknown }) : null;
  return {
    ...item,
    request: (row.request ?? {}) as Record<string, unknown>,
    result: reply ? { data: reply.data ?? null, meta: reply._meta ?? null } : null,
    progress: hasEnded(item.status) ? null : await readProgress(temporal, item.id),
    isRefunded: Boolean(row.is_refunded),
    queue: item.status === 'queued' ? await queuedJobWait(em, account.id, item) : null,
    traceId: traceIdOf(row.trace_context as string | null),
  };
}

/**
 * A queued job's wait behind the account's own work (domain/research/queue-estimate.ts).
 * An API job is served before list and CRM rows, so only the account's API
 * jobs are ahead of it; a row has every earlier job of the account ahead.
 */
async function queuedJobWait(em: EntityManager, accountId: number, job: JobListItem): Promise<JobQueueWait> {
  const [counts] = await em.getConnection().execute<Array<{ queued_ahead: number; processing: number }>>(
    `select count(*) filter (where status = 'queued' and submitted_at < ?)::int as queued_ahead,
            count(*) filter (where status = 'processing')::int as processing
       from research_job where account_id = ? and status in ('queued', 'processing') and (? = false or source = 'api')`,
    [job.submittedAt, accountId, job.source === 'api'],
  );
  return jobQueueWait({ queuedAhead: counts?.queued_ahead ?? 0, processing: counts?.processing ?? 0, medianSeconds: await medianCompletionSeconds(em, accountId) });
}

/** The trace id of a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), as the job row keeps it. */
function traceIdOf(traceparent: string | null): string | null {
  return traceparent?.match(/^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/)?.[1] ?? null;
}

const PROGRESS_QUERY_TIMEOUT_MS = 2_000;

/** docs/decisions.md#the-dashboard: a running job's progress is read through the workflow's query. */
export async function readProgress(temporal: Client, researchId: string): Promise<ResearchProgress | null> {
  try {
    const query = temporal.workflow.getHandle(researchId).query<ResearchProgress>(PROGRESS_QUERY);
    return await Promise.race([query, delay(PROGRESS_QUERY_TIMEOUT_MS, null, { ref: false })]);
  } catch {
    return null;
  }
}

function toListItem(row: Record<string, unknown>): JobListItem {
  const submittedAt = iso(row.submitted_at)!;
  const completedAt = iso(row.completed_at);
  return {
    id: String(row.id),
    email: String(row.email),
    status: row.status as ResearchJobStatus,
    error: (row.error as string | null) ?? null,
    keyId: row.api_key_id === null ? null : Number(row.api_key_id),
    keyPrefix: (row.display_prefix as string | null) ?? null,
    productName: (row.product_name as string | null) ?? null,
    submittedAt,
    completedAt,
    durationMs: completedAt ? new Date(completedAt).getTime() - new Date(submittedAt).getTime() : null,
    source: (row.source as ResearchSource | undefined) ?? 'api',
    listId: row.source === 'list' ? String(row.source_ref) : null,
    listName: (row.list_name as string | null) ?? null,
  };
}
