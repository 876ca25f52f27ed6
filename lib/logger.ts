import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { loggedError } from '../domain/logged-error.ts';
import { activeTraceIds, isTracingOn } from './tracing.ts';

export type { Logger };

/** An error under `err`, `error` or `cause` (Temporal's SDK logs its failures as `error`): name, message, fields, stack and every cause. */
const errorSerializer = (value: unknown) => loggedError(value, { stack: true });

/**
 * JSON-lines logger. API keys must never reach a log line: the Authorization
 * header and any field named like a key or secret are censored wherever they
 * appear in a logged object. An Error is logged with its name, message and
 * causes, not as `{}` (an Error's fields are not enumerable).
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL?.trim() || 'info', destination?: DestinationStream): Logger {
  const options: LoggerOptions<never> = {
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    // trace_id and span_id of the active span; without tracing, no per-line call at all.
    ...(isTracingOn() ? { mixin: () => activeTraceIds() ?? {} } : {}),
    serializers: { err: errorSerializer, error: errorSerializer, cause: errorSerializer },
    redact: {
      paths: [
        'authorization',
        'apiKey',
        'key',
        'password',
        'secret',
        '*.authorization',
        '*.apiKey',
        '*.key',
        '*.password',
        '*.secret',
        'headers.authorization',
        'req.headers.authorization',
        'request.headers.authorization',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
