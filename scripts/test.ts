// `npm test`: type-checks, then runs every suite against a real Temporal dev
// server and a real PostgreSQL that vitest's global setup starts and stops.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './lib/local-services.ts';

const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

const typecheck = spawnSync(bin('tsc'), ['--noEmit', '-p', ROOT], { stdio: 'inherit' });
if (typecheck.status !== 0) {
  process.stderr.write('Type check failed.\n');
  process.exit(typecheck.status ?? 1);
}
const tests = spawnSync(bin('vitest'), ['run', ...process.argv.slice(2)], { stdio: 'inherit', cwd: ROOT });
process.exit(tests.status ?? 1);
