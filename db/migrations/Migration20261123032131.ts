import { Migration } from '@mikro-orm/migrations';

export class Migration20261123032131 extends Migration {

  override name = 'Migration20261123032131';

  override up(): void | Promise<void> {
    this.addSql(`create table "account" ("id" serial primary key, "owner_email" varchar(255) not null, "plan" text not null, "pending_plan" text null, "billing_anchor" timestamptz not null, "language" text not null, "cycle_start" timestamptz not null, "credits_used" int not null default 0, "credit_limit" int not null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "account" add constraint "account_owner_email_unique" unique ("owner_email");`);

    this.addSql(`create table "credit_ledger_entry" ("id" serial primary key, "account_id" int not null, "research_id" varchar(255) null, "kind" text not null, "used_delta" int not null, "limit_after" int not null, "cycle_start" timestamptz not null, "note" varchar(255) null, "created_at" timestamptz not null);`);

    this.addSql(`create table "product_context" ("id" serial primary key, "account_id" int not null, "name" varchar(255) not null, "description" text not null, "key_features" jsonb not null, "target_customers" jsonb not null, "product_url" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);

    this.addSql(`create table "company" ("id" serial primary key, "account_id" int not null, "product_id" int not null, "company_key" varchar(255) not null, "profile" jsonb null, "source" varchar(255) null, "apis_called" jsonb not null, "fetched_at" timestamptz null, "technologies" jsonb null, "posts" jsonb null, "posts_fetched_at" timestamptz null, "news" jsonb null, "news_fetched_at" timestamptz null, "decision_makers_fetched_at" timestamptz null, "insights" jsonb null, "insights_generated_at" timestamptz null);`);
    this.addSql(`alter table "company" add constraint "company_account_id_product_id_company_key_unique" unique ("account_id", "product_id", "company_key");`);

    this.addSql(`create table "decision_maker" ("id" serial primary key, "company_id" int not null, "full_name" varchar(255) not null, "position_title" varchar(255) not null, "social_url" text not null, "picture_url" text null, "location_text" varchar(255) null, "company_name" varchar(255) not null);`);

    this.addSql(`create table "api_key" ("id" serial primary key, "account_id" int not null, "product_id" int null, "key_hash" varchar(64) not null, "display_prefix" varchar(255) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null);`);
    this.addSql(`alter table "api_key" add constraint "api_key_key_hash_unique" unique ("key_hash");`);

    this.addSql(`create table "prospect" ("id" serial primary key, "account_id" int not null, "product_id" int not null, "email" varchar(255) not null, "profile" jsonb null, "source" varchar(255) null, "fetched_at" timestamptz null, "posts" jsonb null, "posts_fetched_at" timestamptz null, "insights" jsonb null, "insights_generated_at" timestamptz null);`);
    this.addSql(`alter table "prospect" add constraint "prospect_account_id_product_id_email_unique" unique ("account_id", "product_id", "email");`);

    this.addSql(`create table "research_job" ("id" varchar(255) not null, "account_id" int not null, "product_id" int null, "api_key_id" int null, "email" varchar(255) not null, "request" jsonb not null, "status" text not null, "error" varchar(255) null, "submitted_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, "reply" jsonb null, "idempotency_key" varchar(255) null, "request_hash" varchar(255) null, "model_usage" jsonb null, primary key ("id"));`);

    this.addSql(`alter table "account" add constraint "account_plan_check" check ("plan" in ('free', 'starter', 'growth', 'scale'));`);
    this.addSql(`alter table "account" add constraint "account_pending_plan_check" check ("pending_plan" in ('free', 'starter', 'growth', 'scale'));`);
    this.addSql(`alter table "account" add constraint "account_language_check" check ("language" in ('en', 'pl', 'de', 'fr', 'es', 'it', 'pt', 'nl'));`);

    this.addSql(`alter table "credit_ledger_entry" add constraint "credit_ledger_entry_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "credit_ledger_entry" add constraint "credit_ledger_entry_kind_check" check ("kind" in ('consume', 'refund', 'cycle_reset', 'plan_change'));`);

    this.addSql(`alter table "product_context" add constraint "product_context_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);

    this.addSql(`alter table "company" add constraint "company_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "company" add constraint "company_product_id_foreign" foreign key ("product_id") references "product_context" ("id") on delete cascade;`);

    this.addSql(`alter table "decision_maker" add constraint "decision_maker_company_id_foreign" foreign key ("company_id") references "company" ("id") on delete cascade;`);

    this.addSql(`alter table "api_key" add constraint "api_key_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "api_key" add constraint "api_key_product_id_foreign" foreign key ("product_id") references "product_context" ("id") on delete set null;`);

    this.addSql(`alter table "prospect" add constraint "prospect_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "prospect" add constraint "prospect_product_id_foreign" foreign key ("product_id") references "product_context" ("id") on delete cascade;`);

    this.addSql(`alter table "research_job" add constraint "research_job_account_id_foreign" foreign key ("account_id") references "account" ("id") on delete cascade;`);
    this.addSql(`alter table "research_job" add constraint "research_job_product_id_foreign" foreign key ("product_id") references "product_context" ("id") on delete set null;`);
    this.addSql(`alter table "research_job" add constraint "research_job_api_key_id_foreign" foreign key ("api_key_id") references "api_key" ("id") on delete set null;`);
    this.addSql(`alter table "research_job" add constraint "research_job_status_check" check ("status" in ('queued', 'processing', 'completed', 'failed'));`);

    // Hand-written: the access paths of the API, the credits and the backstop.
    this.addSql(`create index "research_job_account_submitted_idx" on "research_job" ("account_id", "submitted_at" desc);`);
    this.addSql(`create index "research_job_running_idx" on "research_job" ("submitted_at") where "status" in ('queued', 'processing');`);
    this.addSql(`create unique index "research_job_idempotency_key_unique" on "research_job" ("account_id", "idempotency_key") where "idempotency_key" is not null;`);
    this.addSql(`create unique index "credit_ledger_entry_job_kind_unique" on "credit_ledger_entry" ("research_id", "kind") where "research_id" is not null;`);
    this.addSql(`create index "credit_ledger_entry_account_idx" on "credit_ledger_entry" ("account_id", "created_at");`);
    this.addSql(`create index "api_key_account_idx" on "api_key" ("account_id");`);
    this.addSql(`create index "decision_maker_company_idx" on "decision_maker" ("company_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "credit_ledger_entry" drop constraint "credit_ledger_entry_account_id_foreign";`);
    this.addSql(`alter table "product_context" drop constraint "product_context_account_id_foreign";`);
    this.addSql(`alter table "company" drop constraint "company_account_id_foreign";`);
    this.addSql(`alter table "api_key" drop constraint "api_key_account_id_foreign";`);
    this.addSql(`alter table "prospect" drop constraint "prospect_account_id_foreign";`);
    this.addSql(`alter table "research_job" drop constraint "research_job_account_id_foreign";`);
    this.addSql(`alter table "company" drop constraint "company_product_id_foreign";`);
    this.addSql(`alter table "api_key" drop constraint "api_key_product_id_foreign";`);
    this.addSql(`alter table "prospect" drop constraint "prospect_product_id_foreign";`);
    this.addSql(`alter table "research_job" drop constraint "research_job_product_id_foreign";`);
    this.addSql(`alter table "decision_maker" drop constraint "decision_maker_company_id_foreign";`);
    this.addSql(`alter table "research_job" drop constraint "research_job_api_key_id_foreign";`);

    this.addSql(`drop table if exists "account" cascade;`);
    this.addSql(`drop table if exists "credit_ledger_entry" cascade;`);
    this.addSql(`drop table if exists "product_context" cascade;`);
    this.addSql(`drop table if exists "company" cascade;`);
    this.addSql(`drop table if exists "decision_maker" cascade;`);
    this.addSql(`drop table if exists "api_key" cascade;`);
    this.addSql(`drop table if exists "prospect" cascade;`);
    this.addSql(`drop table if exists "research_job" cascade;`);
  }

}
