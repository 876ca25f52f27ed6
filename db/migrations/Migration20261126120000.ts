import { Migration } from '@mikro-orm/migrations';

/**
 * `crm_portal_metadata`: what the CRM page reads of a portal (the
 * contact properties that can be a lead score), read from HubSpot once per
 * connection and again only when the owner asks, so an open page spends none
 * of the portal's budget. `chat_webhook_pace`: the next moment each chat
 * webhook may take a message (Slack: about one a second per webhook), shared
 * by every process that posts; keyed by the URL's SHA-256, not the URL, which
 * is a secret.
 */
export class Migration20261126120000 extends Migration {
  override name = 'Migration20261126120000';

  override up(): void | Promise<void> {
    this.addSql(`create table "crm_portal_metadata" (
      "account_id" int not null primary key references "account" ("id") on delete cascade,
      "portal_id" bigint not null,
      "score_properties" jsonb not null,
      "read_at" timestamptz not null);`);
    this.addSql(`create table "chat_webhook_pace" (
      "url_hash" text not null primary key,
      "next_at" timestamptz not null);`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table "chat_webhook_pace";');
    this.addSql('drop table "crm_portal_metadata";');
  }
}
