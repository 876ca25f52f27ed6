// Prometheus's promtool, which checks and unit-tests the chart's alerting
// rules (docs/operations.md#alerts): compiled from the Go module proxy into
// .tools/ as Helm is (scripts/lib/helm-tools.ts), since these machines reach
// package registries, not Prometheus's release downloads.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withDirectoryLock } from './directory-lock.ts';
import { findGo } from './helm-tools.ts';
import { ROOT } from './local-services.ts';

const run = promisify(execFile);

/** Pinned: Prometheus's Go module versions are v0.<minor*100+patch>, this one is Prometheus 3.16.0. */
export const PROMTOOL_VERSION = 'v0.316.0';
const PROMTOOL_DIR = join(ROOT, '.tools', `promtool-${PROMTOOL_VERSION}`);

/**
 * `PROMTOOL` if set, else `.tools/promtool-<version>/promtool`, compiled there
 * when missing (minutes on two cores, once per checkout).
 */
export async function ensurePromtool(log: (line: string) => void = () => {}): Promise<string> {
  if (process.env.PROMTOOL) return process.env.PROMTOOL;
  const promtool = join(PROMTOOL_DIR, 'promtool');
  if (existsSync(promtool)) return promtool;
  await withDirectoryLock(`${PROMTOOL_DIR}.lock`, async () => {
    if (existsSync(promtool)) return;
    log(`Compiling promtool ${PROMTOOL_VERSION} into .tools/promtool-${PROMTOOL_VERSION} from the Go module proxy (once per checkout)…`);
    const startedAt = Date.now();
    await run(findGo('promtool', 'PROMTOOL'), ['install', `github.com/prometheus/prometheus/cmd/promtool@${PROMTOOL_VERSION}`], {
      cwd: ROOT,
      env: { ...process.env, GOBIN: PROMTOOL_DIR, GOFLAGS: `${process.env.GOFLAGS ?? ''} -mod=mod`.trim(), CGO_ENABLED: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
    log(`promtool ${PROMTOOL_VERSION} compiled in ${Math.round((Date.now() - startedAt) / 1000)} s.`);
  });
  return promtool;
}

// `node scripts/lib/promtool.ts`: compiles promtool if needed and prints where it is.
if (import.meta.main) {
  console.log(await ensurePromtool((line) => process.stderr.write(`[promtool] ${line}\n`)));
}
