import { timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import { AppError } from '../../domain/errors.ts';
import { metricsRegistry } from '../../lib/metrics.ts';
import type { ApiDeps, RequestState } from '../deps.ts';

/**
 * `/metrics` in the Prometheus text format (lib/metrics.ts lists them). With
 * METRICS_BEARER_TOKEN set, a scrape must present it: the API's port is
 * public, and its figures are not for its clients.
 */
export function metricsRouter(deps: Pick<ApiDeps, 'config'>): Router<RequestState> {
  const router = new Router<RequestState>();
  const token = deps.config.metricsBearerToken;
  router.get('/metrics', async (ctx) => {
    if (token !== null && !isToken(ctx.get('authorization'), token)) throw new AppError('not_found', 'No such endpoint.');
    ctx.type = metricsRegistry.contentType;
    ctx.body = await metricsRegistry.metrics();
  });
  return router;
}

function isToken(header: string, token: string): boolean {
  const presented = Buffer.from(header.replace(/^Bearer\s+/i, ''));
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
