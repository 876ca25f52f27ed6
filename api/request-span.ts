import type { Middleware } from 'koa';
import { inSpan, isTracingOn } from '../lib/tracing.ts';
import type { RequestState } from './deps.ts';

/**
 * One server span per request, continuing the caller's trace when it sends a
 * W3C `traceparent`; the workflow start, the job's activities and its
 * provider calls become its descendants. Named by the route's pattern, never
 * by the path (ids, and keys put in paths, stay out). With tracing off it is
 * not installed at all.
 */
export function requestSpanMiddleware(): Middleware<RequestState> | null {
  if (!isTracingOn()) return null;
  return (ctx, next) =>
    inSpan(
      `${ctx.method}`,
      { 'http.request.method': ctx.method },
      async (span) => {
        try {
          await next();
        } finally {
          const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
          const pattern = typeof route === 'string' ? route : null;
          if (pattern) span.updateName(`${ctx.method} ${pattern}`);
          span.setAttributes({ 'http.route': pattern ?? undefined, 'http.response.status_code': ctx.status });
          if (ctx.status >= 500) span.setError(`HTTP ${ctx.status}`);
        }
      },
      { kind: 'server', carrier: ctx.headers },
    );
}
