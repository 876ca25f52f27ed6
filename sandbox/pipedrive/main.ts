import { createWorld } from '../provider-world/world.ts';
import { startPipedriveSandbox } from './server.ts';

// `npm run dev` can run this as its own process. Its persons are people of the
// provider world with the same seed, so that research on them finds them.
async function main() {
  const world = createWorld({ seed: process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined });
  const sandbox = await startPipedriveSandbox({
    port: Number(process.env.PORT || 4420),
    host: process.env.SANDBOX_PIPEDRIVE_HOST || '127.0.0.1',
    world,
    clientId: process.env.PIPEDRIVE_CLIENT_ID || undefined,
    clientSecret: process.env.PIPEDRIVE_CLIENT_SECRET || undefined,
  });
  process.stdout.write(`${JSON.stringify({ service: 'pipedrive-sandbox', url: sandbox.url })}\n`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`Pipedrive sandbox failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
