import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import type { Logger } from '../lib/logger.ts';

let isInstalled = false;

export interface TemporalRuntimeOptions {
  /**
   * Where the Temporal runtime serves its own Prometheus metrics (task slots,
   * poll and schedule-to-start latencies, sticky cache, …), `host:port`; the
   * worker's /metrics adds them to ours (worker/metrics-server.ts).
   */
  prometheusAddress?: string;
  /** Labels on every runtime metric: the worker's `role`, as on ours, so an alert names the role (docs/operations.md#alerts). */
  globalTags?: Record<string, string>;
}

/**
 * Routes the Temporal SDK's own logs (worker, workflow `log`, activity `log`, native core)
 * into our JSON-lines logger. The Runtime is process-wide: installed once.
 *
 * The runtime's own signal handling is off (`shutdownSignals: []`): it shut
 * the workers down on SIGINT behind our back, and our handler's second
 * `shutdown()` then threw `IllegalStateError: Not running`. Entry points stop
 * their workers themselves (worker/main.ts).
 */
export function installTemporalLogging(
  logger: Logger,
  level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'INFO',
  options: TemporalRuntimeOptions = {},
): void {
  if (isInstalled) return;
  isInstalled = true;
  const sdkLogger = logger.child({ component: 'temporal' });
  Runtime.install({
    logger: new DefaultLogger(level, (entry: LogEntry) => {
      const method = entry.level === 'TRACE' ? 'trace' : (entry.level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
      sdkLogger[method]({ ...entry.meta }, entry.message);
    }),
    shutdownSignals: [],
    telemetryOptions: {
      // Native (Rust core) logs go through the same JSON logger instead of raw stdout.
      logging: { filter: { core: level, other: level }, forward: {} },
      ...(options.prometheusAddress ? { metrics: { prometheus: { bindAddress: options.prometheusAddress, useSecondsForDurations: true }, globalTags: options.globalTags } } : {}),
    },
  });
}
