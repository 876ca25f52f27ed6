import Router from '@koa/router';
import type { AppConfig } from '../../../domain/dashboard/replies.ts';
import type { DashboardConfig } from '../config.ts';
import type { DashboardState } from '../guard.ts';

/** What the pages need to know of the server's settings: where a job's trace is shown, if anywhere. */
export function configRouter(config: Pick<DashboardConfig, 'traceUrl'>): Router<DashboardState> {
  const router = new Router<DashboardState>();
  router.get('/config', (ctx) => {
    const reply: AppConfig = { traceUrl: config.traceUrl };
    ctx.body = reply;
  });
  return router;
}
