import { DEFAULT_MAIL_SANDBOX_HTTP_PORT, DEFAULT_MAIL_SANDBOX_SMTP_PORT } from '../../integrations/mail/config.ts';
import { startMailSandbox } from './mail-sandbox.ts';

// `npm run dev` runs this as its own process; the API and worker send to SMTP_PORT, people read PORT.
async function main() {
  const smtpPort = Number(process.env.SMTP_PORT || DEFAULT_MAIL_SANDBOX_SMTP_PORT);
  const httpPort = Number(process.env.PORT || DEFAULT_MAIL_SANDBOX_HTTP_PORT);
  const sandbox = await startMailSandbox({ smtpPort, httpPort, host: process.env.SANDBOX_MAIL_HOST || '127.0.0.1' });
  process.stdout.write(`${JSON.stringify({ service: 'mail-sandbox', url: sandbox.url, smtpPort: sandbox.smtpPort })}\n`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`mail sandbox failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
