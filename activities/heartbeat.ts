import { Context } from '@temporalio/activity';

const HEARTBEAT_INTERVAL_MS = 1_000;

/**
 * Heartbeats while a slow call runs, so that Temporal notices a dead worker
 * within the profile's heartbeat timeout (not only at start-to-close) and a
 * cancelled job stops waiting on its providers.
 */
export async function withHeartbeat<T>(run: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_INTERVAL_MS);
  try {
    return await run();
  } finally {
    clearInterval(timer);
  }
}
