import { loadApiConfig, type Config } from '../lib/config.ts';
import { exitOnConfigError, loadDotEnv } from '../lib/env.ts';
import { createLogger } from '../lib/logger.ts';
import { startTracing, stopTracing } from '../lib/tracing.ts';
import { bootstrapApi } from './server.ts';

let config: Config;
try {
  loadDotEnv();
  config = loadApiConfig();
  // First: the logger made next stamps its lines with the trace when tracing is on.
  await startTracing('api');
} catch (error) {
  exitOnConfigError('api', error);
}
const logger = createLogger('api', config.logLevel);
// The dashboard's, mail's and billing's settings are read inside: a bad one is one line too.
const api = await bootstrapApi(config, logger).catch((error: unknown) => exitOnConfigError('api', error));
// Closed once: a second Ctrl-C while closing is ignored rather than cutting the close short.
let isClosing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (isClosing) return;
    isClosing = true;
    await api.close();
    await stopTracing();
    process.exit(0);
  });
}
