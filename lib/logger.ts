import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * JSON-lines logger. API keys must never reach a log line: the Authorization
 * header and any field named like a key or secret are censored wherever they
 * appear in a logged object.
 */
export function createLogger(name: string, level = process.env.LOG_LEVEL?.trim() || 'info'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
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
  });
}
