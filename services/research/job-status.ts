import type { EntityManager } from '@mikro-orm/postgresql';
import type { ResearchJobStatus } from '../../db/entities/research-job.ts';
import type { StatusPool } from '../../db/status-pool.ts';
import { API_KEY_PATTERN } from '../../lib/ids.ts';
import { hashApiKey, type AuthenticatedKey } from '../accounts/api-keys.ts';
import type { CompletedReplyCache } from './completed-reply-cache.ts';

/** What `GET /research-status/{id}` needs of a job row. */
export interface JobStatusRow {
  id: string;
  status: ResearchJobStatus;
  error: string | null;
  submitted_at: Date;
  /** The completed reply, frozen as the exact JSON text it is served as (or its bytes, from the cache). */
  completed_reply: string | Buffer | null;
}

/** What a job id can look like at all: visible ASCII and no longer than its column. */
const PLAUSIBLE_ID = /^[\x21-\x7e]{1,255}$/;
/** Looked up in place of an implausible id: no job has it, and the lookup stays the same statement. */
const NO_SUCH_ID = 'res_';

// A NUL byte or an over-long id would make PostgreSQL raise an error (a 500);
// such ids take the same single lookup, with an id that matches nothing.
const lookupIdFor = (researchId: string) => (PLAUSIBLE_ID.test(researchId) ? researchId : NO_SUCH_ID);

/**
 * Prepared once per connection of the status pool (db/status-pool.ts). One
 * statement answers a batch of polls: per poll, the active key for its token
 * and, scoped to that key's account, the job. `with_reply` false leaves a
 * stored reply unread (the API has its bytes already).
 */
const KEYS_AND_JOB_STATUSES = {
  name: 'keys-and-job-statuses',
  text: `select r.n, k.id as key_id, k.account_id, k.product_id, j.id, j.status, j.error, j.submitted_at,
                case when r.with_reply then j.completed_reply end as completed_reply
           from unnest($1::text[], $2::text[], $3::bool[]) with ordinality as r(key_hash, research_id, with_reply, n)
           join api_key k on k.key_hash = r.key_hash and k.revoked_at is null
           left join research_job j on j.id = r.research_id and j.account_id = k.account_id`,
};

export type KeyAndJobStatus = { key: AuthenticatedKey; job: JobStatusRow | null } | null;

/** A row of the statement above: one per poll whose key is active. */
type KeyAndJobStatusRow = { n: string; key_id: number; account_id: number; product_id: number | null } & Nullable<JobStatusRow>;

interface PendingPoll {
  keyHash: string;
  researchId: string;
  cachedReply: Buffer | undefined;
  settle(result: KeyAndJobStatus): void;
  fail(error: unknown): void;
}

/**
 * The hottest read of the service: status polls. Every poll is checked
 * against the database when it arrives (keys are not cached, so revocation is
 * seen at once), but the polls that arrive in one turn of the event loop share
 * one statement and one round trip: under load that is most of a poll's cost.
 * A completed reply comes from `replies` when the API holds it, only after
 * that check.
 */
export class KeyAndJobStatusReader {
  private pending: PendingPoll[] = [];
  private readonly pool: StatusPool;
  private readonly replies: CompletedReplyCache;

  constructor(pool: StatusPool, replies: CompletedReplyCache) {
    this.pool = pool;
    this.replies = replies;
  }

  /**
   * Null when the key is unknown or revoked; `job` null when this key's
   * account has no such job: unknown, malformed and other accounts' ids take
   * the same statement.
   */
  read(token: string, researchId: string): Promise<KeyAndJobStatus> {
    if (!API_KEY_PATTERN.test(token)) return Promise.resolve(null);
    return new Promise((settle, fail) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ keyHash: hashApiKey(token), researchId, cachedReply: this.replies.get(researchId), settle, fail });
    });
  }

  private async flush(): Promise<void> {
    const polls = this.pending;
    this.pending = [];
    try {
      const { rows } = await this.pool.query<KeyAndJobStatusRow>({
        ...KEYS_AND_JOB_STATUSES,
        values: [polls.map((poll) => poll.keyHash), polls.map((poll) => lookupIdFor(poll.researchId)), polls.map((poll) => poll.cachedReply === undefined)],
      });
      const found = new Map(rows.map((row) => [Number(row.n) - 1, row]));
      polls.forEach((poll, index) => poll.settle(this.resultOf(poll, found.get(index))));
    } catch (error) {
      for (const poll of polls) poll.fail(error);
    }
  }

  private resultOf(poll: PendingPoll, row: KeyAndJobStatusRow | undefined): KeyAndJobStatus {
    if (!row) return null;
    const key = { keyId: row.key_id, accountId: row.account_id, productId: row.product_id };
    if (row.id === null) return { key, job: null };
    const { id, status, error, submitted_at, completed_reply } = row as JobStatusRow;
    const reply = status === 'completed' ? poll.cachedReply ?? this.replies.add(id, completed_reply as string) : completed_reply;
    return { key, job: { id, status, error, submitted_at, completed_reply: reply } };
  }
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

type Nullable<T> = { [K in keyof T]: T[K] | null };
