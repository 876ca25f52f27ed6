import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { DASHBOARD_ROOT } from '../../api/dashboard/config.ts';

// Debian's Chromium (which `npm test` installs when missing) and a current dashboard build.
export { launchChromium } from '../../scripts/lib/chromium.ts';
export { ensureDashboardBuilt } from '../../scripts/lib/dashboard-build.ts';

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

/** What a screen reader says after a field's name: its `aria-describedby` texts (Mantine puts a field's error there). */
export function accessibleDescription(field: Locator): Promise<string> {
  return field.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim(),
  );
}
