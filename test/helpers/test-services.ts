import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort } from '../../scripts/lib/free-port.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';
import { startEmbeddedPostgres } from '../../scripts/lib/postgres-server.ts';
import { ensureTemporalCli, startTemporalDevServer } from '../../scripts/lib/temporal-server.ts';
import { WORKFLOW_INTERCEPTOR_MODULES, WORKFLOWS_PATH } from '../../worker/create-worker.ts';

export interface TestServices {
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * One throwaway PostgreSQL cluster (each test file then makes its own
 * database), one in-memory Temporal dev server, and the workflow bundle built
 * once (bundling per file would cost seconds each on two cores).
 */
export async function startTestServices(): Promise<TestServices> {
  const workDir = mkdtempSync(join(tmpdir(), 'prospect-test-'));
  // The postgres system user must reach its data directory inside.
  chmodSync(workDir, 0o755);
  const [postgresPort, temporalPort] = [await freePort(), await freePort()];
  const postgres = await startEmbeddedPostgres({
    dataDir: join(workDir, 'postgres'),
    port: postgresPort,
    database: 'postgres',
    isThrowaway: true,
    logFile: join(workDir, 'postgres.log'),
  });
  const temporal = await startTemporalDevServer({
    binary: ensureTemporalCli(ROOT),
    port: temporalPort,
    uiPort: null,
    logFile: join(workDir, 'temporal.log'),
  }).catch(async (error) => {
    await postgres.stop();
    throw error;
  });
  const bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES, logger: quietBundlerLogger });
  const bundlePath = join(workDir, 'workflow-bundle.js');
  writeFileSync(bundlePath, bundle.code);

  return {
    env: {
      TEST_POSTGRES_ADMIN_URL: postgres.url,
      TEMPORAL_ADDRESS: temporal.address,
      TEST_WORKFLOW_BUNDLE: bundlePath,
      TEST_WORK_DIR: workDir,
      // The stand-ins listen on loopback: the outbound guard lets the tests reach them, as `npm run dev` does.
      ALLOW_PRIVATE_HOSTS: '127.0.0.1',
    },
    async stop() {
      await temporal.process.stop();
      await postgres.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}

const quietBundlerLogger = {
  trace: () => {},
  debug: () => {},
  info: () => {},
  warn: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
  error: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
  log: () => {},
};
