import type { Middleware } from 'koa';
import { AppError } from '../domain/errors.ts';
import type { Logger } from '../lib/logger.ts';
import { httpMetrics } from '../lib/metrics.ts';

/**
 * The one place errors become replies: `{ error: code, message?, ...details }`.
 * Anything that is not an AppError is logged and answered as a bare 500, so no
 * stack trace, SQL or internal name reaches a client.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      // A route that writes its reply itself (`ctx.respond = false`, the MCP endpoint) has answered.
      if (ctx.respond === false) return;
      if (ctx.status === 404 && ctx.body === undefined) throw new AppError('not_found', 'No such endpoint.');
      // The router answers 501 to methods it does not know (TRACE, QUERY, …); a 5xx
      // would tell clients to retry (docs/api.md#retry-advice), so every unsupported method is 405.
      if (ctx.status === 405 || ctx.status === 501) {
        const allow = ctx.response.get('allow');
        throw new AppError('method_not_allowed', `${ctx.method} is not supported here${allow ? `; use ${allow}` : ''}.`);
      }
    } catch (error) {
      if (error instanceof AppError) {
        ctx.status = error.status;
        ctx.body = { error: error.code, ...(error.message !== error.code ? { message: error.message } : {}), ...error.details };
        return;
      }
      logger.error({ err: error, method: ctx.method, path: withoutApiKeys(ctx.path) }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { error: 'internal_error', message: 'Something went wrong on our side; retry with backoff.' };
    }
  };
}

// A client that puts its key where it does not belong (`/research-status/svc_live_…`)
// must not find it in our logs either.
const API_KEY_IN_TEXT = /svc_live_[0-9A-Za-z]*/g;
const withoutApiKeys = (text: string) => text.replace(API_KEY_IN_TEXT, 'svc_live_[redacted]');

/**
 * One JSON log line per request; headers, query strings and bodies (and so API
 * keys) are never logged. Counts it for /metrics by its route's pattern (a path
 * would make a series per research id), and the `?wait` long polls held open.
 */
export function requestLogMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const isLongPoll = ctx.method === 'GET' && ctx.path.startsWith('/research-status/') && Boolean(ctx.query.wait) && ctx.query.wait !== '0';
    if (isLongPoll) httpMetrics.longPollsWaiting.inc();
    try {
      await next();
    } finally {
      if (isLongPoll) httpMetrics.longPollsWaiting.dec();
      const elapsedMs = performance.now() - started;
      const ms = Math.round(elapsedMs * 10) / 10;
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status;
      logger.info({ method: ctx.method, path: withoutApiKeys(ctx.path), status, ms }, 'request');
      const labels = { method: KNOWN_METHODS.has(ctx.method) ? ctx.method : 'other', route: routeOf(ctx as { _matchedRoute?: string | RegExp }), status: String(status) };
      httpMetrics.requests.inc(labels);
      httpMetrics.duration.observe(labels, elapsedMs / 1000);
    }
  };
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The matched route's pattern (`/research-status/:researchId`), or `unmatched` for paths no route knows. */
function routeOf(ctx: { _matchedRoute?: string | RegExp }): string {
  return typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched';
}
