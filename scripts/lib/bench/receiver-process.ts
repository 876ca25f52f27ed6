import { join } from 'node:path';
import type { ReceivedWebhook } from '../../../sandbox/webhook-receiver/server.ts';
import { startProcess, waitFor } from '../child-process.ts';
import { freePort } from '../free-port.ts';
import { ROOT } from '../local-services.ts';

/** The receiver stand-in as a receiver is: a process of its own, read through its admin route. */
export interface ReceiverProcess {
  url: string;
  received(hook: string): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

/**
 * Runs the webhook receiver stand-in in its own process, as an endpoint would
 * be: in the bench's own process its arrival times waited on the event loop of
 * the load generator, which kept 50 job loops going at once.
 */
export async function startReceiverProcess(): Promise<ReceiverProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const receiver = startProcess('webhook-receiver', process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'sandbox/webhook-receiver/main.ts')], {
    env: { ...process.env, PORT: String(port) },
    stdio: 'ignore',
  });
  await waitFor('the webhook receiver', async () => (await fetch(`${url}/__admin/received`)).ok, 30_000);
  return {
    url,
    async received(hook) {
      const reply = await fetch(`${url}/__admin/received?hook=${encodeURIComponent(hook)}`);
      return ((await reply.json()) as { received: ReceivedWebhook[] }).received;
    },
    close: () => receiver.stop(),
  };
}
