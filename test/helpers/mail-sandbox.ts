import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Orm } from '../../db/orm.ts';
import { loadMailConfig, type MailConfig } from '../../integrations/mail/config.ts';
import { createMailer } from '../../integrations/mail/mailer.ts';
import type { Config } from '../../lib/config.ts';
import { createMailOutboxWorker } from '../../worker/mail-outbox-schedule.ts';
import { startMailSandbox, type MailSandbox } from '../../sandbox/mail/mail-sandbox.ts';
import type { CapturedMessage } from '../../sandbox/mail/mailbox.ts';

export interface TestMailSandbox {
  sandbox: MailSandbox;
  /** SMTP settings that point the real mailer at the stand-in. */
  config: MailConfig;
  /** The same as environment variables, for processes a test spawns. */
  env: Record<string, string>;
  /** The newest message to `to` that `matches`, once it has arrived; throws after `timeoutMs`. */
  waitForMessage(to: string, matches?: (message: CapturedMessage) => boolean, timeoutMs?: number): Promise<CapturedMessage>;
  close(): Promise<void>;
}

/** The SMTP stand-in in-process, on free ports (SMTP and its HTTP inbox), for one test file. */
export async function startTestMailSandbox(options: { smtpPort?: number } = {}): Promise<TestMailSandbox> {
  const sandbox = await startMailSandbox({ smtpPort: options.smtpPort ?? 0, httpPort: 0 });
  const env = { SMTP_HOST: sandbox.host, SMTP_PORT: String(sandbox.smtpPort), SMTP_SECURE: 'false', MAIL_FROM: 'Prospect Enrichment <no-reply@test.example>' };
  return {
    sandbox,
    config: loadMailConfig(env),
    env,
    waitForMessage: (to, matches, timeoutMs) => sandbox.waitForMessage(to, matches, timeoutMs),
    close: () => sandbox.close(),
  };
}

export interface TestMailOutboxWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/**
 * The outbox's worker (its own task queue beside the stack's research queue),
 * sending through the real mailer to `mail`. It does not create the Schedule:
 * tests nudge it (services/mail/outbox.ts) and so see exactly what a nudge does.
 */
export async function startTestMailOutboxWorker(options: { config: Config; orm: Orm; clock: () => Date; mail: MailConfig }): Promise<TestMailOutboxWorker> {
  const bundlePath = process.env.TEST_WORKFLOW_BUNDLE;
  if (!bundlePath) throw new Error('TEST_WORKFLOW_BUNDLE is not set: run the tests through vitest\'s global setup (npm test)');
  const connection = await NativeConnection.connect({ address: options.config.temporal.address });
  const mailer = createMailer(options.mail);
  const worker = await createMailOutboxWorker({
    connection,
    namespace: options.config.temporal.namespace,
    researchTaskQueue: options.config.temporal.taskQueue,
    workflowBundle: { codePath: bundlePath },
    deps: { orm: options.orm, mailer, clock: options.clock },
  });
  const done = worker.run();
  return {
    worker,
    async stop() {
      worker.shutdown();
      await done;
      mailer.close();
      await connection.close();
    },
  };
}
