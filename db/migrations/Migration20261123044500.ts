import { Migration } from '@mikro-orm/migrations';

/**
 * A completed job keeps its status reply as the exact JSON text that is sent,
 * so the hottest read of the API serves it without parsing or re-serialising.
 */
export class Migration20261123044500 extends Migration {
  override name = 'Migration20261123044500';

  override up(): void | Promise<void> {
    this.addSql(`alter table "research_job" add column "completed_reply" text null;`);
    this.addSql(`update "research_job" set "completed_reply" = json_build_object(
        'research_id', "id",
        'status', 'completed',
        'completed_at', to_char("completed_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'data', "reply"->'data',
        '_meta', "reply"->'meta')::text
      where "status" = 'completed' and "reply" is not null;`);
    this.addSql(`alter table "research_job" drop column "reply";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "research_job" add column "reply" jsonb null;`);
    this.addSql(`update "research_job" set "reply" = jsonb_build_object('data', "completed_reply"::jsonb->'data', 'meta', "completed_reply"::jsonb->'_meta')
      where "completed_reply" is not null;`);
    this.addSql(`alter table "research_job" drop column "completed_reply";`);
  }
}
