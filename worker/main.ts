import { Runtime, bundleWorkflowCode } from '@temporalio/worker';
import { loadConfig } from '../lib/config.ts';
import { createLogger } from '../lib/logger.ts';
import { WORKFLOWS_PATH, createResearchWorker } from './create-worker.ts';
import { buildActivityDeps } from './dependencies.ts';
import { installTemporalLogging } from './telemetry.ts';
import { createSweepWorker, ensureSweepSchedule } from './sweep-schedule.ts';
import { loadMailConfig } from '../integrations/mail/config.ts';
import { createMailer } from '../integrations/mail/mailer.ts';
import { createMailOutboxWorker, ensureMailOutboxSchedule } from './mail-outbox-schedule.ts';

const logger = createLogger('worker');
installTemporalLogging(logger, 'WARN');
const config = loadConfig();
const mail = loadMailConfig();
const deps = await buildActivityDeps(config, logger);
// Bundled once for both workers.
const workflowBundle = { code: (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: Runtime.instance().logger })).code };
const { worker, connection } = await createResearchWorker({ config, ...deps, workflowBundle });
const sweeper = await createSweepWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps });
await ensureSweepSchedule(deps.temporal, config.temporal.taskQueue, config.researchSweepIntervalMs);
const mailer = createMailer(mail);
const mailSender = await createMailOutboxWorker({ connection, namespace: config.temporal.namespace, researchTaskQueue: config.temporal.taskQueue, workflowBundle, deps: { orm: deps.orm, mailer, clock: deps.clock } });
await ensureMailOutboxSchedule(deps.temporal, config.temporal.taskQueue);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    worker.shutdown();
    sweeper.shutdown();
    mailSender.shutdown();
  });
}
logger.info({ taskQueue: config.temporal.taskQueue, temporal: config.temporal.address }, 'worker running');
await Promise.all([worker.run(), sweeper.run(), mailSender.run()]);
mailer.close();
await connection.close();
await deps.temporal.connection.close();
await deps.orm.close();
