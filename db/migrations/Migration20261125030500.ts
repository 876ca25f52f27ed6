import { Migration } from '@mikro-orm/migrations';

/**
 * The purge deletes a job's webhook deliveries with the job (their payload is
 * its reply), 500 jobs a statement: by this index, not by reading every
 * delivery of every account each time. Test events have no job and are left
 * out of it.
 */
export class Migration20261125030500 extends Migration {
  override name = 'Migration20261125030500';

  override up(): void | Promise<void> {
    this.addSql(`create index "webhook_delivery_research_id_index" on "webhook_delivery" ("research_id") where "research_id" is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "webhook_delivery_research_id_index";`);
  }
}
