import type { TestProject } from 'vitest/node';
import { startTestServices } from './test-services.ts';

/**
 * Starts one PostgreSQL, one Temporal dev server and the sandboxes for the
 * whole run and publishes their addresses through the environment, which the
 * forked test workers (and any process a test spawns) inherit.
 * `TEST_SERVICES=none` skips them for suites of pure logic.
 */
export default async function setup(_project: TestProject) {
  if (process.env.TEST_SERVICES === 'none') return;
  const services = await startTestServices();
  Object.assign(process.env, services.env);
  return async () => services.stop();
}
