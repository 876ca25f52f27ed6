import { Migration } from '@mikro-orm/migrations';

/**
 * A delivery's first attempt is sent by the dispatcher itself, outside
 * Temporal (docs/webhooks.md#delivery): `first_attempt_claimed_at` marks the
 * one dispatcher that took it, so that no other sends it too. A claim whose
 * dispatcher died before handing the delivery on (no `workflow_started_at`
 * a minute later) is taken up by a delivery workflow instead.
 */
export class Migration20261126001000 extends Migration {
  override name = 'Migration20261126001000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "webhook_delivery" add column "first_attempt_claimed_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "webhook_delivery" drop column "first_attempt_claimed_at";`);
  }
}
