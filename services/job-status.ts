import type { EntityManager } from '@mikro-orm/postgresql';
import { hasEnded, type ResearchJobStatus } from '../db/entities/research-job.ts';
import type { StatusPool } from '../db/status-pool.ts';
import { API_KEY_PATTERN } from '../lib/ids.ts';
import { hashApiKey, type AuthenticatedKey } from './api-keys.ts';

/** What `GET /research-status/{id}` needs of a job row. */
export interface JobStatusRow {
  id: string;
  status: ResearchJobStatus;
  error: string | null;
  submitted_at: Date;
  /** The completed reply, frozen as the exact JSON text it is served as. */
  completed_reply: string | null;
}

/** What a job id can look like at all: visible ASCII and no longer than its column. */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,255}$/;
/** Looked up in place of an implausible id: no job has it, and the lookup stays the same statement. */
const NO_SUCH_ID = 'res_';

// A NUL byte or an over-long id would make PostgreSQL raise an error (a 500);
// such ids take the same single lookup, with an id that matches nothing.
const lookupIdFor = (researchId: string) => (PLAUSIBLE_ID.test(researchId) ? researchId : NO_SUCH_ID);

/** Prepared once per connection of the status pool (db/status-pool.ts). */
const KEY_AND_JOB_STATUS = {
  name: 'key-and-job-status',
  text: `select k.id as key_id, k.account_id, k.product_id, j.id, j.status, j.error, j.submitted_at, j.completed_reply
           from api_key k left join research_job j on j.id = $1 and j.account_id = k.account_id
          where k.key_hash = $2 and k.revoked_at is null`,
};

/**
 * The hottest read of the service, in one statement: the active key for a
 * presented token and, scoped to its account, the job. Null when the key is
 * unknown or revoked (nothing is cached, so revocation is seen at once); `job`
 * null when this account has no such job: unknown, malformed and other
 * accounts' ids take the same statement.
 */
export async function findKeyAndJobStatus(
  pool: StatusPool,
  token: string,
  researchId: string,
): Promise<{ key: AuthenticatedKey; job: JobStatusRow | null } | null> {
  if (!API_KEY_PATTERN.test(token)) return null;
  const { rows } = await pool.query<{ key_id: number; account_id: number; product_id: number | null } & Nullable<JobStatusRow>>({
    ...KEY_AND_JOB_STATUS,
    values: [lookupIdFor(researchId), hashApiKey(token)],
  });
  const row = rows[0];
  if (!row) return null;
  const key = { keyId: row.key_id, accountId: row.account_id, productId: row.product_id };
  return { key, job: row.id === null ? null : (row as JobStatusRow) };
}

/** One job of an account, or null (the same single lookup for every kind of id). */
export async function findJobStatus(em: EntityManager, accountId: number, researchId: string): Promise<JobStatusRow | null> {
  const rows: JobStatusRow[] = await em
    .getConnection()
    .execute('select id, status, error, submitted_at, completed_reply from research_job where id = ? and account_id = ?', [
      lookupIdFor(researchId),
      accountId,
    ]);
  return rows[0] ?? null;
}

/** Whether a job known to exist has ended, reading only its status column (the `?wait` loop). */
export async function hasJobEnded(em: EntityManager, accountId: number, researchId: string): Promise<boolean> {
  const rows: Array<{ status: ResearchJobStatus }> = await em
    .getConnection()
    .execute('select status from research_job where id = ? and account_id = ?', [researchId, accountId]);
  return rows.length === 0 || hasEnded(rows[0].status);
}

type Nullable<T> = { [K in keyof T]: T[K] | null };
