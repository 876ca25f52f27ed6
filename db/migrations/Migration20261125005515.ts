import { Migration } from '@mikro-orm/migrations';

/**
 * Cached AI texts remember the language they were written in
 * (docs/decisions.md#data-and-ai). Rows written before this column are left null:
 * their language is unknown (an account may have changed it since), so the
 * next job that reads them regenerates their AI texts once, asking no provider
 * (docs/api.md#freshness, `needsAI`).
 */
export class Migration20261125005515 extends Migration {
  override name = 'Migration20261125005515';

  override up(): void | Promise<void> {
    for (const table of ['prospect', 'company']) {
      this.addSql(`alter table "${table}" add column "insights_language" text null check ("insights_language" in ('en', 'pl', 'de', 'fr', 'es', 'it', 'pt', 'nl'));`);
    }
  }

  override down(): void | Promise<void> {
    for (const table of ['prospect', 'company']) this.addSql(`alter table "${table}" drop column "insights_language";`);
  }
}
