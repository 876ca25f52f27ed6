import { startChatSandbox } from './server.ts';

// `npm run dev` runs this as its own process; a CRM integration's chat webhook URL points at /services/<T>/<B>/<secret> here.
async function main() {
  const sandbox = await startChatSandbox({ port: Number(process.env.PORT || 4510), host: process.env.SANDBOX_CHAT_HOST || '127.0.0.1' });
  process.stdout.write(`${JSON.stringify({ service: 'chat-sandbox', url: sandbox.url })}\n`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`chat sandbox failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
