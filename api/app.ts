import Koa, { type Middleware } from 'koa';
import type { ApiDeps, RequestState } from './deps.ts';
import { errorMiddleware, requestLogMiddleware } from './error-middleware.ts';
import { securityHeaders } from './security-headers.ts';
import { requestSpanMiddleware } from './request-span.ts';
import { healthRouter } from './routes/health.ts';
import { mcpRouter } from './mcp/route.ts';
import { wellKnownRouter } from './mcp/well-known.ts';
import { metricsRouter } from './routes/metrics.ts';
import { openApiRouter } from './routes/openapi.ts';
import { researchRouter } from './routes/research.ts';
import { stripeWebhookRoutes } from './routes/stripe-webhook.ts';

/** `dashboard`: the dashboard's auth, JSON API and pages (api/dashboard), mounted after the research API. */
export function createApp(deps: ApiDeps, dashboard: Middleware<RequestState>[] = []): Koa<RequestState> {
  const app = new Koa<RequestState>({ proxy: false });
  app.silent = true; // errors are logged by errorMiddleware, once
  const requestSpan = requestSpanMiddleware();
  if (requestSpan) app.use(requestSpan); // first: the request's log line and everything after run inside its span
  app.use(securityHeaders(deps.publicUrl));
  app.use(requestLogMiddleware(deps.logger));
  app.use(errorMiddleware(deps.logger));
  app.use(async (ctx, next) => {
    ctx.state.em = deps.orm.em.fork();
    // A draining API closes each kept-alive connection after its reply, so callers reconnect elsewhere.
    if (deps.isDraining?.()) ctx.set('Connection', 'close');
    await next();
  });
  app.use(stripeWebhookRoutes(deps)); // reads its raw body itself: before any body parser
  for (const router of [healthRouter(deps), metricsRouter(deps), openApiRouter(), researchRouter(deps), mcpRouter(deps), wellKnownRouter(deps)]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  for (const middleware of dashboard) app.use(middleware);
  return app;
}
