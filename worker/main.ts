import { loadConfig } from '../lib/config.ts';
import { createLogger } from '../lib/logger.ts';
import { createResearchWorker } from './create-worker.ts';
import { buildActivityDeps } from './dependencies.ts';
import { installTemporalLogging } from './telemetry.ts';
import { ensureSweepSchedule } from './sweep-schedule.ts';

const logger = createLogger('worker');
installTemporalLogging(logger, 'WARN');
const config = loadConfig();
const deps = await buildActivityDeps(config, logger);
const { worker, connection } = await createResearchWorker({ config, ...deps });
await ensureSweepSchedule(deps.temporal, config.temporal.taskQueue, config.researchSweepIntervalMs);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
logger.info({ taskQueue: config.temporal.taskQueue, temporal: config.temporal.address }, 'worker running');
await worker.run();
await connection.close();
await deps.temporal.connection.close();
await deps.orm.close();
