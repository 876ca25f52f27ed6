import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DASHBOARD_ROOT } from '../../api/dashboard/config.ts';

export { ensureDashboardBuilt } from '../../scripts/lib/dashboard-build.ts';
import { CHROMIUM_PATH } from '../../scripts/lib/chromium.ts';

/** Debian's Chromium (`npm test` installs it when missing); the flags keep it off a closed network. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`no Chromium at ${CHROMIUM_PATH}: run the tests through npm test, which installs it`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-gpu', '--no-first-run', '--disable-sync'],
  });
}

/** Serious and critical accessibility findings of the page as it is now (axe-core's WCAG 2 A/AA rules). */
export async function seriousAccessibilityFindings(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/** With SCREENSHOTS=1 the README's pictures are taken again from the running dashboard. */
export async function screenshotForReadme(page: Page, name: string): Promise<void> {
  if (process.env.SCREENSHOTS !== '1') return;
  const dir = join(DASHBOARD_ROOT, 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: false });
}
