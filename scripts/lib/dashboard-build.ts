import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DASHBOARD_DIST, DASHBOARD_ROOT } from '../../api/dashboard/config.ts';

const ROOT = join(DASHBOARD_ROOT, '..');

/** Builds dashboard/dist with Vite (hashed, split, pre-compressed assets). */
export async function buildDashboard(): Promise<void> {
  const { build } = await import('vite');
  // Vite sets NODE_ENV=production in this process; processes started after the build must not inherit it.
  const nodeEnv = process.env.NODE_ENV;
  try {
    await build({ configFile: join(DASHBOARD_ROOT, 'vite.config.ts'), logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}

/** Builds only when a source of the dashboard (its own files or the shared domain/) is newer than the build. */
export async function ensureDashboardBuilt(): Promise<void> {
  const index = join(DASHBOARD_DIST, 'index.html');
  const builtAt = existsSync(index) ? statSync(index).mtimeMs : 0;
  const sources = [join(DASHBOARD_ROOT, 'src'), join(ROOT, 'domain')];
  const newest = Math.max(statSync(join(DASHBOARD_ROOT, 'vite.config.ts')).mtimeMs, ...sources.map(newestIn));
  if (builtAt <= newest) await buildDashboard();
}

function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}
