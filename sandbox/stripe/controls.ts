// Test controls (`/__sandbox/*`) and the inspection endpoint every stand-in
// has (`GET /__admin/calls`): docs/billing.md#the-stripe-stand-in lists them.

import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import { advanceClock } from './clock.ts';
import { StripeApiError } from './errors.ts';
import type { Params } from './params.ts';
import type { DeliveryOrder, WebhookDeliverer } from './webhooks.ts';
import type { StripeWorld } from './world.ts';

const ZClock = z.object({ to: z.union([z.number().int().positive(), z.iso.datetime({ offset: true })]) });
const ZWebhooks = z.object({
  url: z.url().nullable().optional(),
  secret: z.string().min(1).optional(),
  order: z.enum(['in_order', 'reverse']).optional(),
  duplicate: z.boolean().optional(),
});

export interface ControlState {
  world: StripeWorld;
  webhooks: WebhookDeliverer;
  calls: () => { calls: number; requests: unknown[] };
  /** Forgets idempotency keys too. */
  onReset: () => void;
}

export function controlRouter({ world, webhooks, calls, onReset }: ControlState): Router {
  const controls = new Router();
  const paramsOf = (ctx: Context) => (ctx.request as { body?: Params }).body ?? {};
  controls.get('/__admin/calls', (ctx) => {
    ctx.body = calls();
  });
  controls.post('/__sandbox/clock', (ctx) => {
    const parsed = ZClock.safeParse(paramsOf(ctx));
    if (!parsed.success) throw new StripeApiError(400, 'invalid_request_error', '`to` must be a Unix time in seconds or an ISO 8601 date-time.', { param: 'to' });
    const to = typeof parsed.data.to === 'number' ? parsed.data.to : Math.floor(Date.parse(parsed.data.to) / 1000);
    advanceClock(world, to);
    ctx.body = { now: world.now(), iso: new Date(world.now() * 1000).toISOString() };
  });
  controls.get('/__sandbox/clock', (ctx) => {
    ctx.body = { now: world.now(), iso: new Date(world.now() * 1000).toISOString() };
  });
  controls.post('/__sandbox/fail-next-payment', (ctx) => {
    const count = Number(paramsOf(ctx).count ?? 1);
    world.failNextPayment(Number.isInteger(count) && count > 0 ? count : 1);
    ctx.body = { failing: true };
  });
  controls.get('/__sandbox/events', (ctx) => {
    const type = typeof ctx.query.type === 'string' ? ctx.query.type : null;
    ctx.body = {
      data: world.events.filter((event) => !type || event.type === type).map((event) => ({ ...event, delivery: webhooks.records.get(event.id) ?? null })),
    };
  });
  controls.post('/__sandbox/events/:id/resend', (ctx) => {
    const event = world.events.find((candidate) => candidate.id === ctx.params.id);
    if (!event) throw new StripeApiError(404, 'invalid_request_error', `No such event: '${ctx.params.id}'`, { code: 'resource_missing' });
    webhooks.resend(event);
    ctx.body = { resent: event.id };
  });
  controls.post('/__sandbox/webhooks', (ctx) => {
    const parsed = ZWebhooks.safeParse(paramsOf(ctx));
    if (!parsed.success) throw new StripeApiError(400, 'invalid_request_error', 'Expected { url?, secret?, order?: in_order|reverse, duplicate?: boolean }.');
    const { url: endpoint, secret, order, duplicate } = parsed.data;
    if (endpoint !== undefined) webhooks.settings.url = endpoint;
    if (secret !== undefined) webhooks.settings.secret = secret;
    if (order !== undefined) webhooks.settings.order = order as DeliveryOrder;
    if (duplicate !== undefined) webhooks.settings.duplicate = duplicate;
    ctx.body = { url: webhooks.settings.url, order: webhooks.settings.order, duplicate: webhooks.settings.duplicate };
  });
  /** Answers once every event is delivered or given up on (at most `timeout_ms`, default 10 s). */
  controls.get('/__sandbox/idle', async (ctx) => {
    const timeoutMs = Math.min(60_000, Number(ctx.query.timeout_ms ?? 10_000) || 10_000);
    const isIdle = await Promise.race([webhooks.idle().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref())]);
    ctx.status = isIdle ? 200 : 504;
    ctx.body = { idle: isIdle };
  });
  controls.post('/__sandbox/reset', (ctx) => {
    world.reset();
    webhooks.reset();
    onReset();
    ctx.body = { reset: true };
  });
  return controls;
}
