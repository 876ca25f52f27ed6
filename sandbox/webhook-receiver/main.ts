import { startWebhookReceiver } from './server.ts';

// `npm run dev` runs this as its own process: a completion-webhook endpoint at /hooks/<name> that verifies signatures.
async function main() {
  const secrets = (process.env.WEBHOOK_RECEIVER_SECRETS ?? '').split(',').map((secret) => secret.trim()).filter(Boolean);
  const receiver = await startWebhookReceiver({ port: Number(process.env.PORT || 4610), host: process.env.SANDBOX_WEBHOOK_HOST || '127.0.0.1', secrets });
  process.stdout.write(`${JSON.stringify({ service: 'webhook-receiver', url: receiver.url })}\n`);
  const stop = () => void receiver.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`webhook receiver failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
