import { Migration } from '@mikro-orm/migrations';

/**
 * The CRM integration (docs/crm.md; docs/decisions.md#crm-integration): one
 * HubSpot connection per account (tokens encrypted), the consent `state`s in
 * flight, settings per product, sync runs with their per-contact outcomes,
 * and a ledger per (product, portal, contact) that makes a contact's
 * research, properties and note happen once whatever search shows (its
 * index lags behind writes).
 */
export class Migration20261124222300 extends Migration {
  override name = 'Migration20261124222300';

  override up(): void | Promise<void> {
    this.addSql(`create table "crm_connection" (
      "account_id" int not null primary key references "account" ("id") on delete cascade,
      "provider" text not null default 'hubspot' check ("provider" in ('hubspot')),
      "portal_id" bigint not null,
      "hub_user" text not null,
      "connected_by" text not null,
      "scopes" jsonb not null,
      "access_token" text null,
      "refresh_token" text null,
      "access_expires_at" timestamptz null,
      "status" text not null check ("status" in ('connected', 'revoked', 'disconnected')),
      "connected_at" timestamptz not null,
      "refreshed_at" timestamptz null,
      "ended_at" timestamptz null);`);
    this.addSql(`create table "crm_oauth_state" (
      "state_hash" text not null primary key,
      "account_id" int not null references "account" ("id") on delete cascade,
      "product_id" int not null,
      "session_user_id" text not null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz not null,
      "used_at" timestamptz null);`);
    this.addSql(`create table "crm_integration" (
      "product_id" int not null primary key references "product_context" ("id") on delete cascade,
      "account_id" int not null references "account" ("id") on delete cascade,
      "cadence" text not null check ("cadence" in ('daily', 'mon_thu', 'weekly_mon')),
      "hour_utc" int not null check ("hour_utc" between 0 and 23),
      "score_property" text not null,
      "min_score" numeric not null,
      "skip_free_mail" boolean not null,
      "skip_role_based" boolean not null,
      "research_limit" int not null check ("research_limit" between 1 and 50),
      "chat_webhook_url" text null,
      "chat_webhook_disabled_at" timestamptz null,
      "chat_webhook_disabled_reason" text null,
      "digest_enabled" boolean not null,
      "digest_email" text null,
      "active" boolean not null,
      "paused_reason" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null);`);
    this.addSql(`create index "crm_integration_account_idx" on "crm_integration" ("account_id");`);
    this.addSql(`create table "crm_sync_run" (
      "id" text not null primary key,
      "product_id" int not null references "product_context" ("id") on delete cascade,
      "account_id" int not null references "account" ("id") on delete cascade,
      "portal_id" bigint null,
      "trigger" text not null check ("trigger" in ('schedule', 'manual')),
      "status" text not null check ("status" in ('running', 'completed', 'credits_exhausted', 'not_run', 'failed')),
      "reason" text null,
      "found" int not null default 0,
      "skipped" jsonb not null default '{}',
      "researched" int not null default 0,
      "failed" int not null default 0,
      "credits_used" int not null default 0,
      "started_at" timestamptz not null,
      "finished_at" timestamptz null);`);
    this.addSql(`create index "crm_sync_run_product_idx" on "crm_sync_run" ("product_id", "started_at" desc);`);
    this.addSql(`create table "crm_sync_contact" (
      "run_id" text not null references "crm_sync_run" ("id") on delete cascade,
      "contact_id" text not null,
      "position" int not null,
      "email" text null,
      "name" text null,
      "score" numeric null,
      "outcome" text not null check ("outcome" in ('taken', 'skipped', 'researched', 'failed', 'not_researched')),
      "skip_reason" text null,
      "research_id" text null,
      "error" text null,
      primary key ("run_id", "contact_id"));`);
    this.addSql(`create table "crm_contact_state" (
      "product_id" int not null references "product_context" ("id") on delete cascade,
      "portal_id" bigint not null,
      "contact_id" text not null,
      "status" text not null check ("status" in ('in_progress', 'completed', 'failed')),
      "run_id" text not null,
      "research_id" text null,
      "note_id" text null,
      "chat_posted_at" timestamptz null,
      "updated_at" timestamptz not null,
      primary key ("product_id", "portal_id", "contact_id"));`);
  }

  override down(): void | Promise<void> {
    for (const table of ['crm_contact_state', 'crm_sync_contact', 'crm_sync_run', 'crm_integration', 'crm_oauth_state', 'crm_connection']) this.addSql(`drop table "${table}";`);
  }
}
