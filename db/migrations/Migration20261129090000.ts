import { Migration } from '@mikro-orm/migrations';

/**
 * Records a CRM will never let us write (docs/crm.md#batch-writes): a
 * contact's ledger state `refused` keeps it from being taken, researched and
 * charged again by later runs. A run waiting out a CRM's allowance
 * (Pipedrive's daily tokens, Salesforce's 24 hours) says why and until when
 * (`crm_sync_run.waiting_until`, `waiting_reason`), and so does the preview,
 * from the reason kept with the portal's hold-off (`crm_portal_budget.held_reason`).
 */
export class Migration20261129090000 extends Migration {
  override name = 'Migration20261129090000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "crm_contact_state" drop constraint if exists "crm_contact_state_status_check";`);
    this.addSql(`alter table "crm_contact_state" add constraint "crm_contact_state_status_check" check ("status" in ('in_progress', 'completed', 'failed', 'refused'));`);
    this.addSql(`alter table "crm_sync_run" add column "waiting_until" timestamptz null, add column "waiting_reason" text null;`);
    this.addSql(`alter table "crm_portal_budget" add column "held_reason" text null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "crm_portal_budget" drop column "held_reason";`);
    this.addSql(`alter table "crm_sync_run" drop column "waiting_until", drop column "waiting_reason";`);
    this.addSql(`update "crm_contact_state" set "status" = 'failed' where "status" = 'refused';`);
    this.addSql(`alter table "crm_contact_state" drop constraint if exists "crm_contact_state_status_check";`);
    this.addSql(`alter table "crm_contact_state" add constraint "crm_contact_state_status_check" check ("status" in ('in_progress', 'completed', 'failed'));`);
  }
}
