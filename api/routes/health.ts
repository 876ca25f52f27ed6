import Router from '@koa/router';
import type { ApiDeps, RequestState } from '../deps.ts';

const CHECK_TIMEOUT_MS = 2_000;
// temporal.api.enums.v1 values (the proto package is not ours to import directly).
const TASK_QUEUE_KIND_NORMAL = 1;
const TASK_QUEUE_TYPE_WORKFLOW = 1;
/**
 * A worker's long poll lasts up to a minute and the server remembers pollers
 * for minutes after they leave: a poller last seen longer ago than this is gone.
 */
const POLLER_SEEN_WITHIN_MS = 90_000;

type Reachability = 'ok' | 'unreachable';
/** `unknown` while Temporal itself cannot be asked. */
type WorkerState = 'polling' | 'no_pollers' | 'unknown';

/**
 * Each dependency's state: PostgreSQL, Temporal, and whether a worker polls
 * the research task queue (else accepted jobs wait, `queued`, with nobody to
 * run them). 200 while the API can serve, also with no worker (liveness: a
 * restart of the API would not bring one), 503 when PostgreSQL or Temporal is
 * out of reach.
 */
export function healthRouter(deps: ApiDeps): Router<RequestState> {
  const router = new Router<RequestState>();
  // Liveness touches nothing: a PostgreSQL or Temporal blip must not get every API restarted.
  router.get('/livez', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  // Readiness: send traffic here only while both stores answer and the API is not draining.
  router.get('/readyz', async (ctx) => {
    if (deps.isDraining?.()) {
      ctx.status = 503;
      ctx.body = { status: 'draining' };
      return;
    }
    const [postgres, temporal] = await Promise.all([
      check(() => ctx.state.em.getConnection().execute('select 1')),
      check(() => deps.temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => deps.temporal.workflowService.getSystemInfo({}))),
    ]);
    const isReady = postgres === 'ok' && temporal === 'ok';
    ctx.status = isReady ? 200 : 503;
    ctx.body = { status: isReady ? 'ok' : 'unavailable', postgres, temporal };
  });
  router.get('/healthz', async (ctx) => {
    const [postgres, temporal, worker] = await Promise.all([
      check(() => ctx.state.em.getConnection().execute('select 1')),
      check(() =>
        deps.temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
          deps.temporal.workflowService.getSystemInfo({}),
        ),
      ),
      workerState(deps),
    ]);
    const canServe = postgres === 'ok' && temporal === 'ok';
    ctx.status = canServe ? 200 : 503;
    ctx.body = { status: canServe ? (worker === 'polling' ? 'ok' : 'degraded') : 'unavailable', postgres, temporal, worker };
  });
  return router;
}

/** DescribeTaskQueue: a worker that polls for workflow tasks polls for the activities too (one Worker, one queue). */
async function workerState(deps: ApiDeps): Promise<WorkerState> {
  try {
    const reply = await deps.temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
      deps.temporal.workflowService.describeTaskQueue({
        namespace: deps.config.temporal.namespace,
        taskQueue: { name: deps.config.temporal.taskQueue, kind: TASK_QUEUE_KIND_NORMAL },
        taskQueueType: TASK_QUEUE_TYPE_WORKFLOW,
      }),
    );
    const now = Date.now();
    const isRecent = (seconds: number) => now - seconds * 1000 <= POLLER_SEEN_WITHIN_MS;
    const pollers = reply.pollers ?? [];
    return pollers.some((poller) => isRecent(Number(poller.lastAccessTime?.seconds ?? 0))) ? 'polling' : 'no_pollers';
  } catch {
    return 'unknown';
  }
}

async function check(probe: () => Promise<unknown>): Promise<Reachability> {
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
