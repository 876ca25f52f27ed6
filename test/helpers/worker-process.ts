import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/local-services.ts';
import type { TestStack } from './test-stack.ts';

/**
 * The real worker (worker/main.ts) as a process of its own beside a test
 * stack started `withWorker: false`, so that a test can kill it outright
 * (SIGKILL) in the middle of a run and start another. `env` has the last
 * word (a task queue of its own, say).
 */
export function startWorkerProcess(stack: TestStack, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'worker/main.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.config.temporal.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      PROVIDER_SANDBOX_URL: stack.providerWorld.url,
      AI_SANDBOX_URL: stack.model.url,
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: process.env.TEST_WORKER_OUTPUT ? 'inherit' : 'ignore',
  });
}
