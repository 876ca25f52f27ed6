import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyEmail } from '../../integrations/mail/templates/index.ts';
import { launchChromium } from '../helpers/browser.ts';

// The verification link (a long token) ran outside the card of the HTML e-mail.
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the HTML e-mail in Chromium', () => {
  it.each([600, 375])('keeps the written-out verification link inside the card at %i px', async (width) => {
    const url = `http://127.0.0.1:3000/app/api/auth/verify-email?token=${'eyJhbGciOiJIUzI1NiJ9'.repeat(12)}&callbackURL=http%3A%2F%2F127.0.0.1%3A3000%2Fapp%2Fverified`;
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    await page.setContent(verifyEmail({ to: 'new@example.com', url }).html);
    const card = await page.locator('table[width="560"]').boundingBox();
    const link = await page.getByRole('link', { name: url }).boundingBox();
    expect(card).not.toBeNull();
    expect(link).not.toBeNull();
    expect(link!.x + link!.width).toBeLessThanOrEqual(card!.x + card!.width);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await page.close();
  });
});
