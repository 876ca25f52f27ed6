import { Migration } from '@mikro-orm/migrations';

/**
 * More CRMs through one adapter (docs/crm.md#crms). A connection says which
 * CRM it is (`provider`) and, for CRMs that give each connection its own API
 * address, where its calls go (`api_base`: Pipedrive's api_domain,
 * Salesforce's instance_url). Portal ids become text: Salesforce's are
 * alphanumeric. The budget is per CRM and portal, so that two CRMs' portals
 * with the same id never share one. A consent `state` remembers which CRM it
 * was made for and, for PKCE (Salesforce), its code verifier.
 * `crm_field_key`: our fields' keys where the CRM chooses them (Pipedrive's
 * hash keys), per connection and product. `crm_integration.crm_object`:
 * which records a run reads in CRMs that have more than one kind of person
 * (Salesforce: Contact or Lead); null elsewhere.
 */
export class Migration20261128090000 extends Migration {
  override name = 'Migration20261128090000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "crm_connection" drop constraint if exists "crm_connection_provider_check";`);
    this.addSql(`alter table "crm_connection" add constraint "crm_connection_provider_check" check ("provider" in ('hubspot', 'pipedrive', 'salesforce')),
      alter column "portal_id" type text using "portal_id"::text, add column "api_base" text null;`);
    this.addSql(`alter table "crm_oauth_state" add column "provider" text not null default 'hubspot', add column "code_verifier" text null;`);
    this.addSql(`alter table "crm_sync_run" alter column "portal_id" type text using "portal_id"::text, add column "provider" text not null default 'hubspot';`);
    this.addSql(`alter table "crm_contact_state" alter column "portal_id" type text using "portal_id"::text;`);
    this.addSql(`alter table "crm_portal_metadata" alter column "portal_id" type text using "portal_id"::text, add column "provider" text not null default 'hubspot';`);
    this.addSql(`alter table "crm_portal_budget" alter column "portal_id" type text using "portal_id"::text, add column "provider" text not null default 'hubspot';`);
    // Each CRM names its own windows (HubSpot `general` and `search`, Pipedrive `burst`, Salesforce `api`).
    this.addSql(`alter table "crm_portal_budget" drop constraint "crm_portal_budget_pkey", drop constraint if exists "crm_portal_budget_kind_check", add primary key ("provider", "portal_id", "kind");`);
    this.addSql(`alter table "crm_integration" add column "crm_object" text null check ("crm_object" in ('Contact', 'Lead'));`);
    this.addSql(`create table "crm_field_key" (
      "account_id" int not null references "account" ("id") on delete cascade,
      "provider" text not null,
      "portal_id" text not null,
      "product_id" int not null references "product_context" ("id") on delete cascade,
      "keys" jsonb not null,
      primary key ("account_id", "provider", "portal_id", "product_id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table "crm_field_key";');
    this.addSql('alter table "crm_integration" drop column "crm_object";');
    this.addSql(`delete from "crm_portal_budget" where "provider" <> 'hubspot';`);
    this.addSql(`alter table "crm_portal_budget" drop constraint "crm_portal_budget_pkey", drop column "provider", add primary key ("portal_id", "kind"),
      add constraint "crm_portal_budget_kind_check" check ("kind" in ('general', 'search'));`);
    this.addSql('alter table "crm_portal_budget" alter column "portal_id" type bigint using "portal_id"::bigint;');
    this.addSql('alter table "crm_portal_metadata" drop column "provider", alter column "portal_id" type bigint using "portal_id"::bigint;');
    this.addSql('alter table "crm_contact_state" alter column "portal_id" type bigint using "portal_id"::bigint;');
    this.addSql('alter table "crm_sync_run" drop column "provider", alter column "portal_id" type bigint using "portal_id"::bigint;');
    this.addSql('alter table "crm_oauth_state" drop column "provider", drop column "code_verifier";');
    this.addSql(`alter table "crm_connection" drop column "api_base", alter column "portal_id" type bigint using "portal_id"::bigint, drop constraint "crm_connection_provider_check",
      add constraint "crm_connection_provider_check" check ("provider" in ('hubspot'));`);
  }
}
