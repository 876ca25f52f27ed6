/**
 * At most `limit` holders per key at once; the others wait, per key, in the
 * order they came. Keys are independent: a key at its limit never delays
 * another key's holders. In-process only: each process has its own count.
 */
export class KeyedSemaphore {
  readonly limit: number;
  private readonly keys = new Map<string, { holders: number; waiting: Array<() => void> }>();

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a semaphore's limit is a whole number from 1, not ${limit}`);
    this.limit = limit;
  }

  /**
   * Runs `work` once `key` has a free place, and frees it when `work` ends. A
   * wait ended by `signal` rejects with its reason and takes no place.
   */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(key, signal);
    try {
      return await work();
    } finally {
      this.release(key);
    }
  }

  /** Holders now, over every key. */
  holding(): number {
    let total = 0;
    for (const entry of this.keys.values()) total += entry.holders;
    return total;
  }

  /** Waiters now, over every key. */
  waiting(): number {
    let total = 0;
    for (const entry of this.keys.values()) total += entry.waiting.length;
    return total;
  }

  private acquire(key: string, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    let entry = this.keys.get(key);
    if (!entry) {
      entry = { holders: 0, waiting: [] };
      this.keys.set(key, entry);
    }
    if (entry.holders < this.limit) {
      entry.holders += 1;
      return Promise.resolve();
    }
    const queued = entry;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        queued.waiting.splice(queued.waiting.indexOf(admit), 1);
        reject(signal!.reason);
      };
      // Called by release() with the place already counted for this waiter.
      const admit = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      queued.waiting.push(admit);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(key: string): void {
    const entry = this.keys.get(key);
    if (!entry) return;
    const next = entry.waiting.shift();
    // The place passes straight to the next waiter, so no newcomer can take it first.
    if (next) return next();
    entry.holders -= 1;
    if (entry.holders === 0) this.keys.delete(key);
  }
}
