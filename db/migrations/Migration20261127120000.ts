import { Migration } from '@mikro-orm/migrations';

/**
 * Write rules (docs/crm.md#write-rules). `crm_integration.property_mappings`:
 * research outputs written onto the portal's own properties, each with its
 * rule (`[{ field, property, rule }]`); `re_enrich_after_days`: null (off) or
 * after how many days a completed contact is researched again.
 * `crm_portal_metadata.mappable_properties`: the portal's properties a
 * mapping can write, read in the same listing call as the score properties
 * (null: read before this column existed, so read again).
 */
export class Migration20261127120000 extends Migration {
  override name = 'Migration20261127120000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "crm_integration" add column "property_mappings" jsonb not null default '[]', add column "re_enrich_after_days" int null check ("re_enrich_after_days" between 1 and 365);`);
    this.addSql('alter table "crm_portal_metadata" add column "mappable_properties" jsonb null;');
  }

  override down(): void | Promise<void> {
    this.addSql('alter table "crm_portal_metadata" drop column "mappable_properties";');
    this.addSql('alter table "crm_integration" drop column "property_mappings", drop column "re_enrich_after_days";');
  }
}
