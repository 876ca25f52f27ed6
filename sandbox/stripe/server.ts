import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import getRawBody from 'raw-body';
import { apiRouter, type ApiState } from './api-routes.ts';
import { StripeApiError } from './errors.ts';
import { StripeWorld } from './world.ts';
import { pageRouter } from './pages.ts';
import { parseForm, type Params } from './params.ts';
import { WebhookDeliverer } from './webhooks.ts';
import { controlRouter } from './controls.ts';

export const DEFAULT_STRIPE_SANDBOX_PORT = 4210;
const REQUEST_LOG_SIZE = 200;

export interface StripeSandboxOptions {
  port?: number;
  host?: string;
  /** Where events are POSTed (our `/webhooks/stripe`); null: recorded, not sent, until `/__sandbox/webhooks` sets it. */
  webhookUrl?: string | null;
  webhookSecret?: string;
  /** Waits before each redelivery of an event the endpoint refused. */
  retryDelaysMs?: number[];
  /** Keeps the state in this JSON file across restarts (`npm run dev`); none: memory only. */
  stateFile?: string | null;
}

export interface StripeSandbox {
  url: string;
  port: number;
  world: StripeWorld;
  webhooks: WebhookDeliverer;
  close(): Promise<void>;
}

/** One request as the stand-in saw it (`GET /__admin/calls`). */
interface CallRecord {
  at: string;
  method: string;
  path: string;
  status: number;
}


/**
 * A stateful Stripe stand-in: the REST API our billing client calls
 * (`api-routes.ts`), hosted Checkout and Portal pages (`pages.ts`), signed
 * webhooks (`webhooks.ts`) and test controls under `/__sandbox/*`.
 */
export async function startStripeSandbox(options: StripeSandboxOptions = {}): Promise<StripeSandbox> {
  const host = options.host ?? '127.0.0.1';
  const app = new Koa();
  app.silent = true;
  // Listening first: the pages' URLs need the port; requests are handled once the app below is complete.
  const server: Server = createServer();
  server.listen(options.port ?? DEFAULT_STRIPE_SANDBOX_PORT, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  const world = new StripeWorld(url);
  const stateFile = options.stateFile ?? null;
  if (stateFile && existsSync(stateFile)) world.restore(readFileSync(stateFile, 'utf8'));
  const webhooks = new WebhookDeliverer({
    url: options.webhookUrl ?? null,
    secret: options.webhookSecret ?? 'whsec_sandbox',
    order: 'in_order',
    duplicate: false,
    retryDelaysMs: options.retryDelaysMs ?? [500, 2_000, 5_000, 15_000],
  });
  const calls: CallRecord[] = [];
  let callCount = 0;
  const idempotent = new Map<string, { body: string; status: number; reply: unknown }>();

  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const apiError = error instanceof StripeApiError ? error : null;
      if (!apiError) process.stderr.write(`stripe sandbox: ${error instanceof Error ? error.stack : String(error)}\n`);
      const shown = apiError ?? new StripeApiError(500, 'api_error', 'An unexpected error occurred in the Stripe sandbox.');
      ctx.status = shown.status;
      ctx.body = shown.body();
    } finally {
      // Whatever the request changed is announced, in one batch (and kept, when a state file is set).
      const emitted = world.takeEmitted();
      webhooks.enqueue(emitted);
      if (stateFile && (emitted.length > 0 || ctx.method !== 'GET')) writeFileSync(stateFile, world.snapshot());
      callCount += 1;
      calls.push({ at: new Date().toISOString(), method: ctx.method, path: ctx.path, status: ctx.status });
      if (calls.length > REQUEST_LOG_SIZE) calls.shift();
    }
  });

  // Bodies: Stripe's form encoding for the API and the pages; JSON for the test controls.
  app.use(async (ctx, next) => {
    const text = ctx.method === 'GET' || ctx.method === 'HEAD' ? '' : (await getRawBody(ctx.req, { limit: 1024 * 1024, encoding: 'utf8' }));
    const isJson = /json/i.test(ctx.get('content-type'));
    let body: Params = {};
    if (text) {
      try {
        body = isJson ? (JSON.parse(text) as Params) : parseForm(text);
      } catch {
        throw new StripeApiError(400, 'invalid_request_error', 'Invalid request body.');
      }
    }
    (ctx.request as { body?: Params }).body = body;
    (ctx.state as ApiState).params = ctx.method === 'GET' || ctx.method === 'DELETE' ? { ...parseForm(ctx.querystring), ...body } : body;
    (ctx.state as { rawBody?: string }).rawBody = text;
    await next();
  });

  // The API: a secret test key as Bearer token (or Basic user), as Stripe accepts (docs.stripe.com/api/authentication).
  app.use(async (ctx, next) => {
    if (!ctx.path.startsWith('/v1/')) return next();
    const header = ctx.get('authorization');
    const key = header.startsWith('Bearer ') ? header.slice(7).trim() : header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString().split(':')[0]! : '';
    if (!key) {
      throw new StripeApiError(401, 'invalid_request_error', 'You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. \'Authorization: Bearer YOUR_SECRET_KEY\').');
    }
    if (!/^(sk|rk)_test_\w+$/.test(key)) {
      throw new StripeApiError(401, 'invalid_request_error', `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`, { code: 'api_key_invalid' });
    }
    ctx.set('request-id', `req_${Math.random().toString(36).slice(2, 16)}`);
    ctx.set('stripe-version', '2026-10-28.endive');
    // Idempotent requests (docs.stripe.com/api/idempotent_requests): the same key replays the first reply.
    const idempotencyKey = ctx.method === 'POST' ? ctx.get('idempotency-key') : '';
    const rawBody = (ctx.state as { rawBody?: string }).rawBody ?? '';
    const remembered = idempotencyKey ? idempotent.get(`${key}:${idempotencyKey}`) : undefined;
    if (remembered) {
      if (remembered.body !== `${ctx.path}?${rawBody}`) {
        throw new StripeApiError(400, 'idempotency_error', `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`);
      }
      ctx.set('idempotent-replayed', 'true');
      ctx.status = remembered.status;
      ctx.body = remembered.reply;
      return;
    }
    try {
      await next();
    } catch (error) {
      if (!(error instanceof StripeApiError)) throw error;
      ctx.status = error.status;
      ctx.body = error.body();
    }
    if (ctx.status === 404 && ctx.body === undefined) {
      throw new StripeApiError(404, 'invalid_request_error', `Unrecognized request URL (${ctx.method}: ${ctx.path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`);
    }
    if (idempotencyKey && ctx.status < 500) idempotent.set(`${key}:${idempotencyKey}`, { body: `${ctx.path}?${rawBody}`, status: ctx.status, reply: ctx.body });
  });

  const api = apiRouter(world);
  app.use(api.routes());
  app.use(api.allowedMethods());
  const pages = pageRouter(world);
  app.use(pages.routes());

  app.use(controlRouter({ world, webhooks, calls: () => ({ calls: callCount, requests: calls }), onReset: () => idempotent.clear() }).routes());
  server.on('request', app.callback());

  return {
    url,
    port,
    world,
    webhooks,
    async close() {
      webhooks.reset();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
