import Router from '@koa/router';
import type { ApiDeps, RequestState } from '../deps.ts';

const CHECK_TIMEOUT_MS = 2_000;

/** 200 only when the API reaches both PostgreSQL and Temporal. */
export function healthRouter(deps: ApiDeps): Router<RequestState> {
  const router = new Router<RequestState>();
  router.get('/healthz', async (ctx) => {
    const [postgres, temporal] = await Promise.all([
      check(() => ctx.state.em.getConnection().execute('select 1')),
      check(() =>
        deps.temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
          deps.temporal.workflowService.getSystemInfo({}),
        ),
      ),
    ]);
    const healthy = postgres === 'ok' && temporal === 'ok';
    ctx.status = healthy ? 200 : 503;
    ctx.body = { status: healthy ? 'ok' : 'unavailable', postgres, temporal };
  });
  return router;
}

async function check(probe: () => Promise<unknown>): Promise<'ok' | 'unreachable'> {
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS)),
    ]);
    return 'ok';
  } catch {
    return 'unreachable';
  }
}
