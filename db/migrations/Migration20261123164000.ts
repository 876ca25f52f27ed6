import { Migration } from '@mikro-orm/migrations';

/**
 * Retention and account deletion (docs/decisions.md#retention-and-account-deletion). An account asked to
 * be deleted is marked at once; the daily purge deletes its data and leaves
 * the row as a tombstone (`deleted_at`), so ids are never reused. A job's
 * Temporal history may go before its row (a failed job's error details after
 * 6 months, the row after 12): `history_deleted_at` says it is gone, so each
 * history is deleted once. The indexes serve the purge's three scans.
 */
export class Migration20261123164000 extends Migration {
  override name = 'Migration20261123164000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "account" add column "deletion_requested_at" timestamptz null, add column "deleted_at" timestamptz null;`);
    this.addSql(`create index "account_deletion_pending_idx" on "account" ("deletion_requested_at") where "deletion_requested_at" is not null and "deleted_at" is null;`);
    this.addSql(`alter table "research_job" add column "history_deleted_at" timestamptz null;`);
    this.addSql(`create index "research_job_submitted_idx" on "research_job" ("submitted_at");`);
    this.addSql(`create index "research_job_failed_history_idx" on "research_job" ("completed_at") where "status" = 'failed' and "history_deleted_at" is null;`);
    this.addSql(`create index "product_context_account_idx" on "product_context" ("account_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "product_context_account_idx";`);
    this.addSql(`drop index "research_job_failed_history_idx";`);
    this.addSql(`drop index "research_job_submitted_idx";`);
    this.addSql(`alter table "research_job" drop column "history_deleted_at";`);
    this.addSql(`drop index "account_deletion_pending_idx";`);
    this.addSql(`alter table "account" drop column "deletion_requested_at", drop column "deleted_at";`);
  }
}
