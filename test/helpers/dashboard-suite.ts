import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ensureDashboardBuilt, launchChromium, signInThroughPage } from './browser.ts';
import { startTestMailSandbox, type TestMailSandbox } from './mail-sandbox.ts';
import { startTestStack, type TestStack } from './test-stack.ts';

/**
 * What a dashboard suite in Chromium runs on, started once per file: the
 * built dashboard served by the API, the mail sandbox (sign-up, links), the
 * research stack and a browser.
 */
export interface DashboardSuite {
  stack: TestStack;
  mail: TestMailSandbox;
  browser: Browser;
  /** Signs in in a browser context of its own, closed by `stop()`. */
  signIn(email: string, password: string): Promise<Page>;
  stop(): Promise<void>;
}

export async function startDashboardSuite(options: { withWorker?: boolean; apiEnv?: Record<string, string> } = {}): Promise<DashboardSuite> {
  await ensureDashboardBuilt();
  const mail = await startTestMailSandbox();
  const stack = await startTestStack({
    withWorker: options.withWorker,
    apiEnv: { ...mail.env, ...options.apiEnv, DASHBOARD_MODE: 'dist', AUTH_CLIENT_IP_HEADER: 'x-real-ip' },
  });
  const browser = await launchChromium();
  const contexts: BrowserContext[] = [];
  return {
    stack,
    mail,
    browser,
    async signIn(email, password) {
      const { context, page } = await signInThroughPage(browser, stack.apiUrl, { email, password });
      contexts.push(context);
      return page;
    },
    async stop() {
      for (const context of contexts) await context.close();
      await browser.close();
      await stack.stop();
      await mail.close();
    },
  };
}
