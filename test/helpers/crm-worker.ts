import { NativeConnection, type Worker } from '@temporalio/worker';
import { createLogger } from '../../lib/logger.ts';
import { startCrmWorker } from '../../worker/crm-worker.ts';
import type { CrmFixture } from './crm-fixture.ts';
import type { TestStack } from './test-stack.ts';

export interface TestCrmWorker {
  worker: Worker;
  stop(): Promise<void>;
}

/**
 * The CRM worker of a test stack (its `<queue>-crm` task queue), talking to the
 * fixture's HubSpot and chat stand-ins; the research children run on the
 * stack's own research worker. Short HubSpot retry waits keep fault tests quick.
 */
export async function startTestCrmWorker(stack: TestStack, crm: Pick<CrmFixture, 'env' | 'deps'>): Promise<TestCrmWorker> {
  const connection = await NativeConnection.connect({ address: stack.config.temporal.address });
  const worker = await startCrmWorker({
    connection,
    namespace: stack.config.temporal.namespace,
    researchTaskQueue: stack.config.temporal.taskQueue,
    workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! },
    orm: stack.orm,
    temporal: stack.temporal,
    env: crm.env,
    publicUrl: stack.apiUrl,
    clock: () => new Date(),
    logger: createLogger('test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    retry: crm.deps.retry,
  });
  if (!worker) throw new Error('the CRM worker needs a CRM app in its environment');
  const done = worker.run();
  return {
    worker,
    async stop() {
      worker.shutdown();
      await done;
      await connection.close();
    },
  };
}
