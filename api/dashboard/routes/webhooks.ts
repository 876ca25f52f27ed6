import Router from '@koa/router';
import { z } from 'zod';
import { AppError } from '../../../domain/errors.ts';
import type { WebhookConfig } from '../../../integrations/webhooks/config.ts';
import { parseWebhookUrl, WebhookUrlRefused } from '../../../integrations/webhooks/webhook-poster.ts';
import { assertResolvesPublicly, OutboundRefused } from '../../../integrations/web/outbound-guard.ts';
import {
  createEndpoint,
  deleteEndpoint,
  enqueueTestEvent,
  listEndpoints,
  pageDeliveries,
  resendDelivery,
  revealSecret,
  rotateSecret,
  updateEndpoint,
  WEBHOOK_EVENTS,
} from '../../../services/webhooks/webhooks.ts';
import { ZDeliveryFilter } from '../../../domain/webhooks/webhooks.ts';
import { parseBody, parseWith, type DashboardState } from '../guard.ts';
import { idParam } from './ids.ts';

export interface WebhooksRouteDeps {
  clock: () => Date;
  webhooks: WebhookConfig;
}

const ENDPOINT = 'webhook endpoint';
/** An account has at most this many endpoints (each ended job becomes a delivery per endpoint). */
const MAX_ENDPOINTS = 10;

const ZEvents = z.array(z.enum(WEBHOOK_EVENTS)).min(1, 'Choose at least one event.').transform((events) => [...new Set(events)]);
const ZNewEndpoint = z.object({ url: z.string().trim().min(1).max(2048), events: ZEvents });
const ZEndpointChange = z.object({ events: ZEvents.optional(), isPaused: z.boolean().optional() });

/**
 * The Webhooks page's API (docs/webhooks.md#endpoints): endpoints
 * (https, resolving to no private address), their events, pause and resume,
 * the signing secret on demand and its rotation, a test event, and each
 * endpoint's deliveries, page by page, with "Resend". No list reply carries a secret.
 */
export function webhooksRouter(deps: WebhooksRouteDeps): Router<DashboardState> {
  const router = new Router<DashboardState>();
  // A malformed, unknown or another account's id: one and the same 404 body.
  const notFound = () => new AppError('not_found', `No such ${ENDPOINT}.`);

  router.get('/webhooks', async (ctx) => {
    ctx.body = { endpoints: await listEndpoints(ctx.state.em, ctx.state.account.id, deps.clock()), events: WEBHOOK_EVENTS };
  });

  router.post('/webhooks', async (ctx) => {
    const input = await parseBody(ctx, ZNewEndpoint);
    let url: URL;
    try {
      url = parseWebhookUrl(input.url, deps.webhooks.allowedPrivateHosts);
      await assertResolvesPublicly(url, input.url, deps.webhooks);
    } catch (error) {
      if (error instanceof WebhookUrlRefused || error instanceof OutboundRefused) throw new AppError('invalid_request', error.message, { field: 'url' });
      throw error;
    }
    const existing = await listEndpoints(ctx.state.em, ctx.state.account.id, deps.clock());
    if (existing.length >= MAX_ENDPOINTS) throw new AppError('invalid_request', `An account has at most ${MAX_ENDPOINTS} webhook endpoints.`);
    const created = await createEndpoint(ctx.state.em, deps.webhooks.secretKey, { accountId: ctx.state.account.id, url: url.href, events: input.events }, deps.clock());
    ctx.status = 201;
    ctx.body = created;
  });

  router.patch('/webhooks/:endpointId', async (ctx) => {
    const endpointId = idParam(ctx.params.endpointId, ENDPOINT);
    const change = await parseBody(ctx, ZEndpointChange);
    if (!(await updateEndpoint(ctx.state.em, ctx.state.account.id, endpointId, change))) throw notFound();
    ctx.body = { updated: true };
  });

  router.delete('/webhooks/:endpointId', async (ctx) => {
    if (!(await deleteEndpoint(ctx.state.em, ctx.state.account.id, idParam(ctx.params.endpointId, ENDPOINT)))) throw notFound();
    ctx.body = { deleted: true };
  });

  // POST, not GET: revealing a secret is an action (and never cached or prefetched).
  router.post('/webhooks/:endpointId/secret', async (ctx) => {
    const secret = await revealSecret(ctx.state.em, deps.webhooks.secretKey, ctx.state.account.id, idParam(ctx.params.endpointId, ENDPOINT));
    if (secret === null) throw notFound();
    ctx.set('cache-control', 'no-store');
    ctx.body = { secret };
  });

  router.post('/webhooks/:endpointId/rotate', async (ctx) => {
    const secret = await rotateSecret(ctx.state.em, deps.webhooks.secretKey, ctx.state.account.id, idParam(ctx.params.endpointId, ENDPOINT), deps.clock());
    if (secret === null) throw notFound();
    ctx.set('cache-control', 'no-store');
    ctx.body = { secret };
  });

  router.post('/webhooks/:endpointId/test', async (ctx) => {
    const deliveryId = await enqueueTestEvent(ctx.state.em, ctx.state.account.id, idParam(ctx.params.endpointId, ENDPOINT), deps.clock());
    if (deliveryId === null) throw notFound();
    ctx.status = 202;
    ctx.body = { deliveryId };
  });

  // Page by page, optionally one status only; another account's endpoint is 404, like every route here.
  router.get('/webhooks/:endpointId/deliveries', async (ctx) => {
    const endpointId = idParam(ctx.params.endpointId, ENDPOINT);
    const page = await pageDeliveries(ctx.state.em, ctx.state.account.id, endpointId, parseWith(ZDeliveryFilter, { ...ctx.query }));
    if (page === null) throw notFound();
    ctx.body = page;
  });

  router.post('/webhook-deliveries/:deliveryId/resend', async (ctx) => {
    const deliveryId = String(ctx.params.deliveryId ?? '');
    if (!(await resendDelivery(ctx.state.em, ctx.state.account.id, deliveryId))) {
      throw new AppError('not_found', 'No such delivery, or it is being delivered now.');
    }
    ctx.status = 202;
    ctx.body = { resent: true };
  });

  return router;
}
