import { Migration } from '@mikro-orm/migrations';

/**
 * A list started while its account already runs its plan's number of lists
 * waits `queued` (docs/lists.md#lists-waiting-their-turn), its rows written as
 * at any start; `queued_at` orders an account's waiting lists, and the oldest
 * becomes `running` when one of the account's running lists ends
 * (services/lists/queue.ts). The start relay's index covers the lists so
 * promoted as well.
 */
export class Migration20261130100000 extends Migration {
  override name = 'Migration20261130100000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "prospect_list" drop constraint if exists "prospect_list_status_check";`);
    this.addSql(`alter table "prospect_list" add constraint "prospect_list_status_check"
      check ("status" in ('draft', 'queued', 'running', 'cancelling', 'completed', 'cancelled', 'stopped_no_credits')),
      add column "queued_at" timestamptz null;`);
    this.addSql(`create index "prospect_list_queued_idx" on "prospect_list" ("account_id", "queued_at") where "status" = 'queued';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "prospect_list_queued_idx";`);
    this.addSql(`update "prospect_list" set "status" = 'cancelled', "stopped_reason" = 'cancelled' where "status" = 'queued';`);
    this.addSql(`alter table "prospect_list" drop constraint "prospect_list_status_check", drop column "queued_at";`);
    this.addSql(`alter table "prospect_list" add constraint "prospect_list_status_check"
      check ("status" in ('draft', 'running', 'cancelling', 'completed', 'cancelled', 'stopped_no_credits'));`);
  }
}
