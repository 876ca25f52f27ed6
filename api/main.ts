import { loadConfig } from '../lib/config.ts';
import { createLogger } from '../lib/logger.ts';
import { bootstrapApi } from './server.ts';

const logger = createLogger('api');
const api = await bootstrapApi(loadConfig(), logger);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await api.close();
    process.exit(0);
  });
}
