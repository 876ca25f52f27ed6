import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox of workflow starts: a job is recorded with `workflow_started_at`
 * null in the transaction that takes its credit, and the column is set once
 * its workflow exists. The relay (services/research/workflow-start-relay.ts) starts
 * every queued job still without one, oldest first, through the partial
 * index, which holds only those few rows.
 * Jobs past `queued` are marked started (their workflow ran, or they ended);
 * queued ones are left null, so the relay makes sure their workflow exists (a
 * double start is refused by Temporal, and counts as started; one past its
 * deadline fails/timeout with its refund, as the sweeper would).
 */
export class Migration20261125010000 extends Migration {
  override name = 'Migration20261125010000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "research_job" add column "workflow_started_at" timestamptz null;`);
    this.addSql(`update "research_job" set "workflow_started_at" = coalesce("started_at", "submitted_at") where "status" <> 'queued';`);
    this.addSql(`create index "research_job_workflow_unstarted_idx" on "research_job" ("submitted_at") where "workflow_started_at" is null and "status" = 'queued';`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "research_job_workflow_unstarted_idx";`);
    this.addSql(`alter table "research_job" drop column "workflow_started_at";`);
  }
}
