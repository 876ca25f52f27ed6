import { DEFAULT_MODEL_SANDBOX_PORT } from '../../integrations/ai/ai-config.ts';
import { startModelSandbox } from './model-sandbox.ts';

// `npm run dev` runs this as its own process; other processes steer it through /__admin/*.

async function main() {
  const port = Number(process.env.SANDBOX_MODEL_PORT ?? process.env.PORT ?? DEFAULT_MODEL_SANDBOX_PORT);
  const host = process.env.SANDBOX_MODEL_HOST ?? '127.0.0.1';
  const latencyMs = Number(process.env.SANDBOX_MODEL_LATENCY_MS ?? 0);
  const sandbox = await startModelSandbox({ port, host, latencyMs });
  process.stdout.write(`${JSON.stringify({ service: 'model-sandbox', url: sandbox.url, port: sandbox.port })}\n`);
  const stop = () => void sandbox.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`model sandbox failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
