import { Migration } from '@mikro-orm/migrations';

/**
 * AI agents call the research tools over MCP (docs/mcp.md): their jobs carry
 * the source `mcp`, so the jobs, usage and the ledger can say so.
 */
export class Migration20261129100000 extends Migration {
  override name = 'Migration20261129100000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "research_job" drop constraint if exists "research_job_source_check";`);
    this.addSql(`alter table "research_job" add constraint "research_job_source_check" check ("source" in ('api', 'list', 'crm', 'mcp'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`update "research_job" set "source" = 'api' where "source" = 'mcp';`);
    this.addSql(`alter table "research_job" drop constraint if exists "research_job_source_check";`);
    this.addSql(`alter table "research_job" add constraint "research_job_source_check" check ("source" in ('api', 'list', 'crm'));`);
  }
}
