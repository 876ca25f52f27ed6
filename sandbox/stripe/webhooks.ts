// Webhook delivery as Stripe documents it (docs.stripe.com/webhooks): a POST of
// the event's JSON with `Stripe-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of
// "<t>.<body>" keyed by the endpoint's signing secret>`, retried with backoff
// until the endpoint answers 2xx. Stripe does not promise delivery order; the
// `order` switch makes that visible on purpose.

import { createHmac } from 'node:crypto';
import type { SandboxEvent } from './world.ts';

export type DeliveryOrder = 'in_order' | 'reverse';

export interface DeliveryAttempt {
  at: string;
  status: number | null;
  error: string | null;
}

export interface DeliveryRecord {
  eventId: string;
  type: string;
  state: 'pending' | 'delivered' | 'failed' | 'no_endpoint';
  attempts: DeliveryAttempt[];
}

export interface WebhookSettings {
  url: string | null;
  secret: string;
  order: DeliveryOrder;
  /** Send every event twice, as Stripe may. */
  duplicate: boolean;
  /** Waits before each retry; after the last, the event is marked failed. */
  retryDelaysMs: number[];
}

export function signPayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}

export class WebhookDeliverer {
  settings: WebhookSettings;
  readonly records = new Map<string, DeliveryRecord>();
  private queue: Array<{ event: SandboxEvent; attempt: number }> = [];
  private inFlight = 0;
  private timers = new Set<NodeJS.Timeout>();
  private waiters: Array<() => void> = [];

  constructor(settings: WebhookSettings) {
    this.settings = settings;
  }

  enqueue(batch: SandboxEvent[]): void {
    if (batch.length === 0) return;
    const ordered = this.settings.order === 'reverse' ? [...batch].reverse() : batch;
    for (const event of ordered) {
      this.records.set(event.id, { eventId: event.id, type: event.type, state: this.settings.url ? 'pending' : 'no_endpoint', attempts: [] });
      if (!this.settings.url) continue;
      this.queue.push({ event, attempt: 0 });
      if (this.settings.duplicate) this.queue.push({ event, attempt: 0 });
    }
    this.pump();
  }

  /** Sends an event again, as the Dashboard's "Resend" does: same id and body, a fresh signature. */
  resend(event: SandboxEvent): void {
    const record = this.records.get(event.id) ?? { eventId: event.id, type: event.type, state: 'pending', attempts: [] };
    record.state = 'pending';
    this.records.set(event.id, record);
    this.queue.push({ event, attempt: 0 });
    this.pump();
  }

  /** Resolves once nothing is queued, in flight or waiting for a retry. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  reset(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.queue = [];
    this.records.clear();
    this.settleWaiters();
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0 && this.timers.size === 0;
  }

  private settleWaiters(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  // One delivery at a time, so the order chosen above is the order the endpoint sees.
  private pump(): void {
    if (this.inFlight > 0) return;
    const next = this.queue.shift();
    if (!next) return this.settleWaiters();
    this.inFlight += 1;
    void this.deliver(next.event, next.attempt).finally(() => {
      this.inFlight -= 1;
      this.pump();
    });
  }

  private async deliver(event: SandboxEvent, attempt: number): Promise<void> {
    const record = this.records.get(event.id)!;
    const url = this.settings.url;
    if (!url) {
      record.state = 'no_endpoint';
      return;
    }
    const payload = JSON.stringify({ ...event, pending_webhooks: 1 }, null, 2);
    let status: number | null = null;
    let error: string | null = null;
    try {
      const reply = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'stripe-signature': signPayload(payload, this.settings.secret) },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      status = reply.status;
      await reply.arrayBuffer();
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause);
    }
    record.attempts.push({ at: new Date().toISOString(), status, error });
    if (status !== null && status >= 200 && status < 300) {
      record.state = 'delivered';
      return;
    }
    const delay = this.settings.retryDelaysMs[attempt];
    if (delay === undefined) {
      record.state = 'failed';
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.queue.push({ event, attempt: attempt + 1 });
      this.pump();
    }, delay);
    this.timers.add(timer);
  }
}
