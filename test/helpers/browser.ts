import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { AxeResults } from 'axe-core';
import type { Browser, BrowserContext, Locator, Page, Route } from 'playwright-core';
import { DASHBOARD_ROOT } from '../../api/dashboard/config.ts';

// Debian's Chromium (which `npm test` installs when missing) and a current dashboard build.
export { launchChromium } from '../../scripts/lib/chromium.ts';
export { ensureDashboardBuilt } from '../../scripts/lib/dashboard-build.ts';

const WCAG_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/**
 * Moderate, serious and critical accessibility findings of the page as it is now (axe-core's WCAG 2 A/AA rules and
 * its best practices: landmarks, headings, regions), and the
 * colour contrast of every button on it hovered, focused and pressed: a state a person reaches with the mouse or the
 * keyboard has to be readable too (white on Mantine's lighter hover shade was not).
 */
export async function seriousAccessibilityFindings(page: Page): Promise<string[]> {
  const findings = serious(await new AxeBuilder({ page }).withTags([...WCAG_AA, 'best-practice']).analyze());
  for (const states of BUTTON_STATES) {
    const release = await forceOnButtons(page, states);
    try {
      const inState = serious(await new AxeBuilder({ page }).withRules(['color-contrast']).analyze());
      findings.push(...inState.map((finding) => `buttons in :${states.join(':')}: ${finding}`));
    } finally {
      await release();
    }
  }
  return findings;
}

/** Only `minor` findings pass: a duplicate landmark or a skipped heading level is `moderate`, and it is a finding. */
const COUNTED_IMPACTS = new Set(['moderate', 'serious', 'critical']);

function serious(result: AxeResults): string[] {
  return result.violations
    .filter((violation) => COUNTED_IMPACTS.has(violation.impact ?? ''))
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

const BUTTON_STATES = [['hover'], ['focus', 'focus-visible'], ['active']];
/** Whatever a person presses: buttons, and links, tabs or menu items drawn as buttons. */
const BUTTONS = 'button, [role="button"], [role="tab"], [role="menuitem"], input[type="submit"], input[type="button"], .mantine-Button-root, .mantine-ActionIcon-root';

/** Puts every button of the page in a CSS state (Chromium's DevTools "force state"); the returned function takes it off. */
async function forceOnButtons(page: Page, states: string[]): Promise<() => Promise<void>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: -1 });
  const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: BUTTONS });
  for (const nodeId of nodeIds) await cdp.send('CSS.forcePseudoState', { nodeId, forcedPseudoClasses: states });
  // Detaching the session ends every state it forced.
  return () => cdp.detach();
}

/**
 * Holds the page's `method` requests to `url` until the returned function is called, so that the button that sent
 * one stays in its loading state for as long as a test looks at it.
 */
export async function holdRequests(page: Page, url: string, method = 'POST'): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: Promise<void>[] = [];
  const hold = (route: Route) => {
    const passed = (async () => {
      if (route.request().method() === method) await released;
      await route.continue();
    })();
    held.push(passed);
    return passed;
  };
  await page.route(url, hold);
  return async () => {
    release();
    await Promise.all(held);
    await page.unroute(url, hold);
  };
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

/**
 * A new browser context signed in as a person does it, through the sign-in page, ending on the
 * page it lands on (API keys).
 */
export async function signInThroughPage(
  browser: Browser,
  baseURL: string,
  owner: { email: string; password: string },
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, viewport, reducedMotion: 'reduce' });
  const page = await context.newPage();
  await page.goto('/app/sign-in');
  await page.getByLabel('E-mail').fill(owner.email);
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
  return { context, page };
}
