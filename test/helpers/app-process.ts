import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import type { TestStack } from './test-stack.ts';

export interface AppProcess {
  child: ChildProcess;
  /** The API's address, or the worker's probe and metrics port. */
  url: string;
  stderr(): string;
}

/**
 * The real API (`api/main.ts`) or a worker (`worker/main.ts ROLE`) as a process
 * of its own against a test stack's PostgreSQL, Temporal and sandboxes, on a
 * port of its own; `env` has the last word. Its stderr is kept for messages.
 */
export async function startAppProcess(stack: TestStack, entry: 'api/main.ts' | 'worker/main.ts', args: string[], env: Record<string, string> = {}): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, entry), ...args], {
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: stack.config.databaseUrl,
      TEMPORAL_ADDRESS: stack.config.temporal.address,
      TEMPORAL_TASK_QUEUE: stack.config.temporal.taskQueue,
      PROVIDER_SANDBOX_URL: stack.providerWorld.url,
      AI_SANDBOX_URL: stack.model.url,
      WORKFLOW_BUNDLE_PATH: process.env.TEST_WORKFLOW_BUNDLE!,
      LOG_LEVEL: 'info',
      ...(entry === 'worker/main.ts' ? { WORKER_METRICS_PORT: String(port) } : { PORT: String(port) }),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, url: `http://127.0.0.1:${port}`, stderr: () => stderr };
}
