import { Migration } from '@mikro-orm/migrations';

/**
 * Completion webhooks (docs/webhooks.md): an account's
 * endpoints, one delivery per (ended job, matching endpoint) and every attempt
 * of each delivery.
 *
 * The deliveries of a job are written by a trigger in the very transaction
 * that ends the job, whichever path ends it (the workflow, the API's
 * backstop, the sweeper; API, CRM or list jobs alike): an outbox, so no end is
 * missed and the job itself never waits on a webhook. The body is frozen
 * there too: `data` is the exact text `GET /research-status/{id}` answers for
 * the ended job (api/research-status.ts), so every attempt sends the same bytes.
 * `pg_notify` wakes the worker's dispatcher (services/webhooks/dispatch.ts).
 */
export class Migration20261124233000 extends Migration {
  override name = 'Migration20261124233000';

  override up(): void | Promise<void> {
    this.addSql(`create table "webhook_endpoint" (
      "id" serial primary key,
      "account_id" int not null references "account" ("id") on delete cascade,
      "url" text not null,
      "events" text[] not null,
      "secret" text not null,
      "previous_secret" text null,
      "previous_secret_expires_at" timestamptz null,
      "status" text not null check ("status" in ('active', 'paused', 'disabled')),
      "disabled_reason" text null check ("disabled_reason" in ('gone', 'failing')),
      "disabled_at" timestamptz null,
      "failing_since" timestamptz null,
      "created_at" timestamptz not null);`);
    this.addSql(`create index "webhook_endpoint_account_id_index" on "webhook_endpoint" ("account_id");`);
    this.addSql(`create table "webhook_delivery" (
      "id" text primary key,
      "endpoint_id" int not null references "webhook_endpoint" ("id") on delete cascade,
      "account_id" int not null references "account" ("id") on delete cascade,
      "event_type" text not null,
      "research_id" text null,
      "payload" text not null,
      "status" text not null check ("status" in ('pending', 'delivered', 'failed', 'skipped')),
      "attempts" int not null default 0,
      "last_status_code" int null,
      "last_error" text null,
      "last_duration_ms" int null,
      "run" int not null default 0,
      "workflow_started_at" timestamptz null,
      "created_at" timestamptz not null,
      "ended_at" timestamptz null);`);
    this.addSql(`create index "webhook_delivery_endpoint_index" on "webhook_delivery" ("endpoint_id", "created_at" desc);`);
    this.addSql(`create index "webhook_delivery_unstarted_index" on "webhook_delivery" ("created_at") where "workflow_started_at" is null;`);
    this.addSql(`create table "webhook_attempt" (
      "id" bigserial primary key,
      "delivery_id" text not null references "webhook_delivery" ("id") on delete cascade,
      "attempted_at" timestamptz not null,
      "status_code" int null,
      "error" text null,
      "duration_ms" int not null);`);
    this.addSql(`create index "webhook_attempt_delivery_index" on "webhook_attempt" ("delivery_id");`);
    this.addSql(`create function "research_job_webhook_deliveries"() returns trigger language plpgsql as $$
      declare
        event_type text := case when new."status" = 'completed' then 'research.completed' else 'research.failed' end;
        reply text := case when new."status" = 'completed' then new."completed_reply"
          else '{"research_id":' || to_json(new."id")::text || ',"status":"failed","error":'
            || case when new."error" = 'timeout' then '"timeout"' else '"internal_error"' end || '}' end;
        inserted int;
      begin
        insert into "webhook_delivery" ("id", "endpoint_id", "account_id", "event_type", "research_id", "payload", "status", "created_at")
          select 'msg_' || replace(gen_random_uuid()::text, '-', ''), e."id", e."account_id", event_type, new."id",
                 '{"type":"' || event_type || '","timestamp":"' || to_char(now() at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
                   || '","data":' || reply || '}',
                 'pending', now()
            from "webhook_endpoint" e
           where e."account_id" = new."account_id" and e."status" = 'active' and event_type = any(e."events");
        get diagnostics inserted = row_count;
        if inserted > 0 then perform pg_notify('webhook_delivery_created', ''); end if;
        return null;
      end $$;`);
    this.addSql(`create trigger "research_job_webhook_deliveries" after update of "status" on "research_job"
      for each row when (new."status" in ('completed', 'failed') and old."status" is distinct from new."status")
      execute function "research_job_webhook_deliveries"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "research_job_webhook_deliveries" on "research_job";`);
    this.addSql(`drop function "research_job_webhook_deliveries"();`);
    this.addSql(`drop table "webhook_attempt";`);
    this.addSql(`drop table "webhook_delivery";`);
    this.addSql(`drop table "webhook_endpoint";`);
  }
}
