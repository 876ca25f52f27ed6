import { DEFAULT_STRIPE_SANDBOX_PORT, startStripeSandbox } from './server.ts';

// `npm run dev` runs this as its own process. STRIPE_WEBHOOK_URL is where events
// go (the API's /webhooks/stripe), signed with STRIPE_WEBHOOK_SECRET;
// STRIPE_SANDBOX_STATE_FILE keeps its state across restarts.

async function main() {
  const port = Number(process.env.PORT || DEFAULT_STRIPE_SANDBOX_PORT);
  const sandbox = await startStripeSandbox({
    port,
    host: process.env.SANDBOX_STRIPE_HOST || '127.0.0.1',
    webhookUrl: process.env.STRIPE_WEBHOOK_URL || null,
    webhookSecret: process.env.STRIPE_WEBHOOK_SECRET || 'whsec_sandbox',
    stateFile: process.env.STRIPE_SANDBOX_STATE_FILE || null,
  });
  process.stdout.write(`${JSON.stringify({ service: 'stripe-sandbox', url: sandbox.url, port: sandbox.port, webhookUrl: sandbox.webhooks.settings.url })}\n`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`stripe sandbox failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
