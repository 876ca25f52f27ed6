import { DefaultLogger, Runtime, type LogEntry } from '@temporalio/worker';
import type { Logger } from '../lib/logger.ts';

let isInstalled = false;

/**
 * Routes the Temporal SDK's own logs (worker, workflow `log`, activity `log`, native core)
 * into our JSON-lines logger. The Runtime is process-wide: installed once.
 */
export function installTemporalLogging(logger: Logger, level: 'TRACE' | 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' = 'INFO'): void {
  if (isInstalled) return;
  isInstalled = true;
  const sdkLogger = logger.child({ component: 'temporal' });
  Runtime.install({
    logger: new DefaultLogger(level, (entry: LogEntry) => {
      const method = entry.level === 'TRACE' ? 'trace' : (entry.level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error');
      sdkLogger[method]({ ...entry.meta }, entry.message);
    }),
    // Native (Rust core) logs go through the same JSON logger instead of raw stdout.
    telemetryOptions: { logging: { filter: { core: level, other: level }, forward: {} } },
  });
}
