import { loadMailConfig, type MailConfig } from '../../integrations/mail/config.ts';
import { startMailSandbox, type MailSandbox } from '../../sandbox/mail/mail-sandbox.ts';
import type { CapturedMessage } from '../../sandbox/mail/mailbox.ts';

export interface TestMailSandbox {
  sandbox: MailSandbox;
  /** SMTP settings that point the real mailer at the stand-in. */
  config: MailConfig;
  /** The same as environment variables, for processes a test spawns. */
  env: Record<string, string>;
  /** The newest message to `to` that `matches`, once it has arrived; throws after `timeoutMs`. */
  waitForMessage(to: string, matches?: (message: CapturedMessage) => boolean, timeoutMs?: number): Promise<CapturedMessage>;
  close(): Promise<void>;
}

/** The SMTP stand-in in-process, on free ports (SMTP and its HTTP inbox), for one test file. */
export async function startTestMailSandbox(options: { smtpPort?: number } = {}): Promise<TestMailSandbox> {
  const sandbox = await startMailSandbox({ smtpPort: options.smtpPort ?? 0, httpPort: 0 });
  const env = { SMTP_HOST: sandbox.host, SMTP_PORT: String(sandbox.smtpPort), SMTP_SECURE: 'false', MAIL_FROM: 'Prospect Enrichment <no-reply@test.example>' };
  return {
    sandbox,
    config: loadMailConfig(env),
    env,
    async waitForMessage(to, matches = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = sandbox.messages(to).find(matches);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching e-mail to ${to} within ${timeoutMs} ms (inbox holds ${sandbox.messages().length})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => sandbox.close(),
  };
}
