import { NativeConnection, type Worker } from '@temporalio/worker';
import { loadWebhookConfig, type WebhookConfig } from '../../integrations/webhooks/config.ts';
import { createLogger } from '../../lib/logger.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../sandbox/webhook-receiver/server.ts';
import { startWebhookDispatcher } from '../../services/webhooks/dispatch.ts';
import { createWebhookWorker } from '../../worker/webhook-worker.ts';
import type { TestStack } from './test-stack.ts';

/** The development allow-list the tests use (the receiver is on loopback); the API is told the same through `apiEnv`. */
export const WEBHOOK_TEST_ENV = { ALLOW_PRIVATE_HOSTS: '127.0.0.1' };

export interface TestWebhooks {
  receiver: WebhookReceiver;
  config: WebhookConfig;
  stop(): Promise<void>;
}

/**
 * Webhook delivery for a test stack, as the worker process runs it: the
 * delivery worker on its own task queue, the dispatcher, and the sandbox
 * receiver that verifies signatures.
 */
export async function startTestWebhooks(stack: TestStack, options: { firstAttemptsFromDispatcher?: boolean } = {}): Promise<TestWebhooks> {
  const config = loadWebhookConfig(WEBHOOK_TEST_ENV);
  const receiver = await startWebhookReceiver({ port: 0 });
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  const worker: Worker = await createWebhookWorker({
    connection,
    namespace: stack.config.temporal.namespace,
    researchTaskQueue: stack.config.temporal.taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    deps: { orm: stack.orm, webhooks: config, clock: () => new Date() },
  });
  const running = worker.run();
  const dispatcher = await startWebhookDispatcher({
    orm: stack.orm,
    temporal: stack.temporal,
    databaseUrl: stack.config.databaseUrl,
    researchTaskQueue: stack.config.temporal.taskQueue,
    logger: createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    // As the webhooks worker runs it; without, every attempt goes through a delivery workflow.
    ...(options.firstAttemptsFromDispatcher ? { firstAttempts: { webhooks: config, clock: () => new Date() } } : {}),
  });
  return {
    receiver,
    config,
    async stop() {
      await dispatcher.stop();
      worker.shutdown();
      await running;
      await connection.close();
      await receiver.close();
    },
  };
}
