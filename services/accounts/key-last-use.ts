import type { EntityManager } from '@mikro-orm/postgresql';

const WRITE_INTERVAL_MS = 60_000;

/**
 * Records when each key was last used, at most once a minute per key and
 * process (docs/decisions.md#the-dashboard): a write on every request would put a
 * row lock on the hot path, and minute resolution is what a person reads.
 */
export class KeyLastUse {
  private readonly lastWrittenMs = new Map<number, number>();
  private readonly clock: () => Date;

  constructor(clock: () => Date) {
    this.clock = clock;
  }

  /** Never fails the request it is called from: last use is informational. */
  async touch(em: EntityManager, keyId: number): Promise<void> {
    const now = this.clock();
    const previous = this.lastWrittenMs.get(keyId);
    if (previous !== undefined && now.getTime() - previous < WRITE_INTERVAL_MS) return;
    this.lastWrittenMs.set(keyId, now.getTime());
    if (this.lastWrittenMs.size > 100_000) this.lastWrittenMs.clear();
    await em
      .getConnection()
      .execute('update api_key set last_used_at = ? where id = ? and (last_used_at is null or last_used_at < ?)', [now, keyId, new Date(now.getTime() - WRITE_INTERVAL_MS)])
      .catch(() => this.lastWrittenMs.delete(keyId));
  }
}
