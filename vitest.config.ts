import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Temporal's native bridge has crashed vitest's thread pool; forks are steady.
    pool: 'forks',
    // One Temporal dev server, one PostgreSQL and the sandboxes per test run.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: more parallel files only queue behind each other.
    maxWorkers: 2,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
