import { Migration } from '@mikro-orm/migrations';

/**
 * Tracing (docs/operations.md#traces): the W3C trace context a job was
 * accepted in, so that its webhook deliveries, sent by another process after
 * the job ends, join the job's trace. Null with tracing off.
 */
export class Migration20261130110000 extends Migration {
  override name = 'Migration20261130110000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "research_job" add column "trace_context" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "research_job" drop column "trace_context";`);
  }
}
