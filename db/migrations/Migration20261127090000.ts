import { Migration } from '@mikro-orm/migrations';

/**
 * `crm_portal_budget`: a HubSpot portal's rate budget, shared by
 * every process that calls it (the API's preview, any number of CRM
 * workers): per portal and kind (general calls, searches) the moments of the
 * calls inside the current window and the end of the backoff a 429 asked
 * for, both by the database's clock (docs/crm.md#rate-limits).
 */
export class Migration20261127090000 extends Migration {
  override name = 'Migration20261127090000';

  override up(): void | Promise<void> {
    this.addSql(`create table "crm_portal_budget" (
      "portal_id" bigint not null,
      "kind" text not null check ("kind" in ('general', 'search')),
      "calls" timestamptz[] not null default '{}',
      "held_until" timestamptz not null default '-infinity',
      primary key ("portal_id", "kind"));`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table "crm_portal_budget";');
  }
}
