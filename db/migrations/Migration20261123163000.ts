import { Migration } from '@mikro-orm/migrations';

/**
 * Billing through Stripe: an account's customer and subscription, and the
 * webhook events already applied (one row each, unique by Stripe's event id).
 */
export class Migration20261123163000 extends Migration {
  override name = 'Migration20261123163000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "account" add column "stripe_customer_id" varchar(255) null, add column "stripe_subscription_id" varchar(255) null, add column "subscription_status" varchar(255) null;`);
    this.addSql(`alter table "account" add constraint "account_stripe_customer_id_unique" unique ("stripe_customer_id");`);
    this.addSql(`create table "stripe_event" ("id" varchar(255) not null primary key, "type" varchar(255) not null, "account_id" int null, "received_at" timestamptz not null);`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "stripe_event";`);
    this.addSql(`alter table "account" drop constraint "account_stripe_customer_id_unique";`);
    this.addSql(`alter table "account" drop column "stripe_customer_id", drop column "stripe_subscription_id", drop column "subscription_status";`);
  }
}
