import pg from 'pg';
import type { Logger } from '../lib/logger.ts';

/** Announced by a trigger when a job's status becomes completed or failed (Migration20261123073000). */
const CHANNEL = 'research_job_ended';
const RECONNECT_DELAYS_MS = [250, 1_000, 5_000];
/** While the listener is down, a wait ends this soon, and its caller re-reads the row (the old polling). */
const DISCONNECTED_WAIT_MS = 250;

/** Why a wait ended: its job's end was announced, its time ran out, or the listener lost its connection. */
export type WaitOutcome = 'ended' | 'timeout' | 'interrupted';

export interface JobEndWait {
  outcome: Promise<WaitOutcome>;
  cancel(): void;
}

/**
 * The API's one LISTEN connection for job ends. A `?wait` long poll registers
 * here, re-reads its job's row, and sleeps until the job's end is announced
 * (or its time runs out) instead of re-reading the row every few milliseconds.
 *
 * A notification sent while the connection is down is lost, so every waiter
 * is woken (`interrupted`) when the connection drops, and re-reads its row.
 */
export class JobEndNotifications {
  private readonly waiters = new Map<string, Set<(outcome: WaitOutcome) => void>>();
  private client: pg.Client | null = null;
  private isClosed = false;
  private failedConnects = 0;
  private readonly databaseUrl: string;
  private readonly logger: Logger;

  constructor(databaseUrl: string, logger: Logger) {
    this.databaseUrl = databaseUrl;
    this.logger = logger;
  }

  /** Connects and listens; resolves once listening (later reconnects happen in the background). */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    client.on('notification', (message) => {
      if (message.payload) this.wake(message.payload, 'ended');
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    this.client = client;
    this.failedConnects = 0;
  }

  /**
   * Registers a wait for one job's end, resolving after at most `timeoutMs`
   * (while the listener is down, after a short while, `interrupted`).
   */
  wait(researchId: string, timeoutMs: number): JobEndWait {
    const isListening = this.client !== null;
    let settle: (outcome: WaitOutcome) => void = () => {};
    const outcome = new Promise<WaitOutcome>((resolve) => {
      const timer = isListening
        ? setTimeout(() => settle('timeout'), timeoutMs)
        : setTimeout(() => settle(timeoutMs <= DISCONNECTED_WAIT_MS ? 'timeout' : 'interrupted'), Math.min(timeoutMs, DISCONNECTED_WAIT_MS));
      settle = (result) => {
        clearTimeout(timer);
        this.waiters.get(researchId)?.delete(settle);
        if (this.waiters.get(researchId)?.size === 0) this.waiters.delete(researchId);
        resolve(result);
      };
    });
    if (isListening) this.waiters.set(researchId, (this.waiters.get(researchId) ?? new Set()).add(settle));
    return { outcome, cancel: () => settle('timeout') };
  }

  /** Wakes every waiting long poll (`interrupted`), which re-reads its job: a draining API's, which then answers. */
  interruptAll(): void {
    this.wakeAll('interrupted');
  }

  async close(): Promise<void> {
    this.isClosed = true;
    const client = this.client;
    this.client = null;
    this.wakeAll('interrupted');
    await client?.end().catch(() => {});
  }

  private wake(researchId: string, outcome: WaitOutcome): void {
    for (const settle of [...(this.waiters.get(researchId) ?? [])]) settle(outcome);
  }

  private wakeAll(outcome: WaitOutcome): void {
    for (const researchId of [...this.waiters.keys()]) this.wake(researchId, outcome);
  }

  private lost(client: pg.Client, error: Error | null): void {
    if (this.client !== client) return;
    this.client = null;
    this.wakeAll('interrupted');
    if (this.isClosed) return;
    this.logger.warn({ err: error }, 'the job-end listener lost its connection; long polls re-read their jobs until it is back');
    client.end().catch(() => {});
    this.reconnectLater();
  }

  private reconnectLater(): void {
    const delay = RECONNECT_DELAYS_MS[Math.min(this.failedConnects, RECONNECT_DELAYS_MS.length - 1)];
    setTimeout(() => {
      if (this.isClosed) return;
      this.start().catch((error: unknown) => {
        this.failedConnects += 1;
        this.logger.warn({ err: error }, 'the job-end listener could not reconnect; retrying');
        this.reconnectLater();
      });
    }, delay).unref();
  }
}
