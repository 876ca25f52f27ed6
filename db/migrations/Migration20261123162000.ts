import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail that must go out once (the outbox) and the usage thresholds passed per
 * cycle (docs/decisions.md#plans: alerts at 75 % and 95 %, on by default).
 */
export class Migration20261123162000 extends Migration {
  override name = 'Migration20261123162000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "account" add column "usage_alerts_enabled" boolean not null default true;`);

    this.addSql(`create table "email_outbox" ("id" serial primary key, "account_id" int null, "dedupe_key" varchar(255) not null, "recipient" varchar(255) not null, "subject" text not null, "text" text not null, "html" text not null, "created_at" timestamptz not null, "next_attempt_at" timestamptz not null, "sent_at" timestamptz null, "failed_at" timestamptz null, "attempts" int not null default 0, "last_error" text null);`);
    this.addSql(`alter table "email_outbox" add constraint "email_outbox_dedupe_key_unique" unique ("dedupe_key");`);
    this.addSql(`alter table "email_outbox" add constraint "email_outbox_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete set null;`);
    // The sender's access path: due rows not yet sent nor given up, oldest first.
    this.addSql(`create index "email_outbox_due_idx" on "email_outbox" ("next_attempt_at", "id") where "sent_at" is null and "failed_at" is null;`);

    this.addSql(`create table "usage_alert" ("id" serial primary key, "account_id" int not null, "cycle_start" timestamptz not null, "threshold" int not null, "used" int not null, "limit" int not null, "is_emailed" boolean not null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "usage_alert" add constraint "usage_alert_account_id_cycle_start_threshold_unique" unique ("account_id", "cycle_start", "threshold");`);
    this.addSql(`alter table "usage_alert" add constraint "usage_alert_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "usage_alert";`);
    this.addSql(`drop table "email_outbox";`);
    this.addSql(`alter table "account" drop column "usage_alerts_enabled";`);
  }
}
