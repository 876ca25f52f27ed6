// `npm test`: type-checks the server and the dashboard, builds the dashboard,
// makes sure Debian's Chromium is there for the browser tests, then runs every
// suite against a real Temporal dev server and a real PostgreSQL that vitest's
// global setup starts and stops.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureChromium } from './lib/chromium.ts';
import { ensureDashboardBuilt } from './lib/dashboard-build.ts';
import { ROOT } from './lib/local-services.ts';

const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
const log = (line: string) => process.stderr.write(`[test] ${line}\n`);

for (const project of [ROOT, join(ROOT, 'dashboard')]) {
  const typecheck = spawnSync(bin('tsc'), ['--noEmit', '-p', project], { stdio: 'inherit' });
  if (typecheck.status !== 0) {
    log(`Type check of ${project} failed.`);
    process.exit(typecheck.status ?? 1);
  }
}
await ensureDashboardBuilt();
ensureChromium(log);
const tests = spawnSync(bin('vitest'), ['run', ...process.argv.slice(2)], { stdio: 'inherit', cwd: ROOT });
process.exit(tests.status ?? 1);
