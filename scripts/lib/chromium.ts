import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The browser tests drive Debian's Chromium (playwright-core downloads no
 * browser here). Installed from Debian's packages when missing; that needs root,
 * which CI and these machines have.
 */
export function ensureChromium(log: (line: string) => void): void {
  if (existsSync(CHROMIUM_PATH)) return;
  if (process.getuid?.() !== 0) throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`);
  log("Installing Debian's chromium for the browser tests (apt-get)…");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', 'chromium']]) {
    const run = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (run.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${run.status})`);
  }
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`apt-get installed chromium, but ${CHROMIUM_PATH} is still missing`);
}

/** Headless Debian Chromium; the flags keep it off this machine's closed network (no background calls home). */
export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: run through npm test, which installs it`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-gpu', '--no-first-run', '--disable-sync'],
  });
}
