import { Migration } from '@mikro-orm/migrations';

/**
 * Lists and where a research job came from.
 *
 * `research_job.source` says who asked for a job (`api`, `list`, `crm`);
 * `source_ref` and `source_item` name the list or CRM run and its row or
 * contact. Their unique index is what makes an item's research happen once
 * (and be charged once) however often the fan-out's step is retried
 * (workflows/research-fanout.ts).
 *
 * A list keeps its parsed cells (at most 1,000 rows, 2 MiB) for the results
 * download; its rows are written when it starts, one per data row, with what
 * became of it (`skipped` with the reason, `pending`, `started` with its job,
 * `not_charged` when cancelled or out of credits). `workflow_started_at` is the
 * intent to start the list's run: null until its workflow exists
 * (services/lists/runs.ts starts the ones a crashed API left behind).
 */
export class Migration20261125012500 extends Migration {
  override name = 'Migration20261125012500';

  override up(): void | Promise<void> {
    this.addSql(`alter table "research_job" add column "source" text not null default 'api' check ("source" in ('api', 'list', 'crm')),
      add column "source_ref" text null, add column "source_item" text null;`);
    this.addSql(`create unique index "research_job_source_item_idx" on "research_job" ("source_ref", "source_item") where "source_ref" is not null;`);
    this.addSql(`create table "prospect_list" (
      "id" text primary key,
      "account_id" int not null references "account" ("id") on delete cascade,
      "api_key_id" int null references "api_key" ("id") on delete set null,
      "product_id" int null references "product_context" ("id") on delete set null,
      "name" text not null,
      "status" text not null check ("status" in ('draft', 'running', 'cancelling', 'completed', 'cancelled', 'stopped_no_credits')),
      "headers" jsonb not null,
      "cells" jsonb not null,
      "first_row_number" int not null,
      "mapping" jsonb not null,
      "skip_flagged" boolean not null default false,
      "to_run" int not null default 0,
      "stopped_reason" text null,
      "created_at" timestamptz not null,
      "started_at" timestamptz null,
      "workflow_started_at" timestamptz null,
      "finished_at" timestamptz null);`);
    this.addSql(`create index "prospect_list_account_idx" on "prospect_list" ("account_id", "created_at");`);
    this.addSql(`create index "prospect_list_unstarted_idx" on "prospect_list" ("started_at") where "workflow_started_at" is null and "status" in ('running', 'cancelling');`);
    this.addSql(`create table "prospect_list_row" (
      "list_id" text not null references "prospect_list" ("id") on delete cascade,
      "position" int not null,
      "row_number" int not null,
      "email" text null,
      "request" jsonb null,
      "status" text not null check ("status" in ('skipped', 'pending', 'started', 'not_charged')),
      "reason" text null,
      "research_id" text null,
      primary key ("list_id", "position"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "prospect_list_row";`);
    this.addSql(`drop table "prospect_list";`);
    this.addSql(`drop index "research_job_source_item_idx";`);
    this.addSql(`alter table "research_job" drop column "source", drop column "source_ref", drop column "source_item";`);
  }
}
