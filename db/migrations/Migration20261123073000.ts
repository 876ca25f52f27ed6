import { Migration } from '@mikro-orm/migrations';

/**
 * A job that ends (completed or failed, by whichever path: the workflow, the
 * API's backstop, the sweeper) announces its id on `research_job_ended` when
 * its transaction commits, so that `?wait` long polls wake at once instead of
 * re-reading the row (db/job-end-notifications.ts).
 */
export class Migration20261123073000 extends Migration {
  override name = 'Migration20261123073000';

  override up(): void | Promise<void> {
    this.addSql(`create function "research_job_ended_notify"() returns trigger language plpgsql as $$
      begin
        perform pg_notify('research_job_ended', new."id");
        return null;
      end $$;`);
    this.addSql(`create trigger "research_job_ended" after update of "status" on "research_job"
      for each row when (new."status" in ('completed', 'failed') and old."status" is distinct from new."status")
      execute function "research_job_ended_notify"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "research_job_ended" on "research_job";`);
    this.addSql(`drop function "research_job_ended_notify"();`);
  }
}
