import { Migration } from '@mikro-orm/migrations';

/**
 * A CRM run started while its account already runs CRM_RUNS_PER_ACCOUNT runs
 * waits `queued` (docs/crm.md#runs-waiting-their-turn); its `started_at` is
 * when it was asked for until it takes its turn, then when it started
 * (services/crm/run-turns.ts).
 */
export class Migration20261130113700 extends Migration {
  override name = 'Migration20261130113700';

  override up(): void | Promise<void> {
    this.addSql(`alter table "crm_sync_run" drop constraint if exists "crm_sync_run_status_check";`);
    this.addSql(`alter table "crm_sync_run" add constraint "crm_sync_run_status_check"
      check ("status" in ('queued', 'running', 'completed', 'credits_exhausted', 'not_run', 'failed'));`);
    this.addSql(`create index "crm_sync_run_account_open_idx" on "crm_sync_run" ("account_id", "started_at") where "status" in ('queued', 'running');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "crm_sync_run_account_open_idx";`);
    this.addSql(`update "crm_sync_run" set "status" = 'failed', "reason" = 'cancelled', "finished_at" = now() where "status" = 'queued';`);
    this.addSql(`alter table "crm_sync_run" drop constraint "crm_sync_run_status_check";`);
    this.addSql(`alter table "crm_sync_run" add constraint "crm_sync_run_status_check"
      check ("status" in ('running', 'completed', 'credits_exhausted', 'not_run', 'failed'));`);
  }
}
