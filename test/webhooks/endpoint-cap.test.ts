// One endpoint's first attempts under way at once are capped across every
// dispatcher (WEBHOOK_ATTEMPTS_PER_ENDPOINT, services/webhooks/webhooks.ts
// claimFirstAttempts): one account's burst to a slow receiver waits its turn,
// each event still delivered once, and another endpoint's deliveries pass it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../helpers/until.ts';
import { loadWebhookConfig } from '../../integrations/webhooks/config.ts';
import { createLogger } from '../../lib/logger.ts';
import { startWebhookDispatcher, type WebhookDispatcher } from '../../services/webhooks/dispatch.ts';
import { createEndpoint, enqueueTestEvent, listDeliveries } from '../../services/webhooks/webhooks.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

const HOLD_MS = 400;
const PER_ENDPOINT = 3;

let stack: TestStack;
let server: Server;
let receiverUrl: string;
const inFlight = new Map<string, number>();
const peak = new Map<string, number>();
const arrivals: Array<{ path: string; id: string; at: number }> = [];
const dispatchers: WebhookDispatcher[] = [];
const webhooks = loadWebhookConfig({ ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
const em = () => stack.orm.em.fork();

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  // A receiver that takes HOLD_MS to answer, counting each path's requests under way.
  server = createServer((req, res) => {
    const path = req.url ?? '';
    inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
    peak.set(path, Math.max(peak.get(path) ?? 0, inFlight.get(path)!));
    arrivals.push({ path, id: String(req.headers['webhook-id']), at: Date.now() });
    req.resume();
    setTimeout(() => {
      inFlight.set(path, inFlight.get(path)! - 1);
      res.statusCode = 204;
      res.end();
    }, path === '/slow' ? HOLD_MS : 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Two dispatchers, as two webhooks processes run them: the cap holds across both.
  for (let index = 0; index < 2; index++) {
    dispatchers.push(await startWebhookDispatcher({
      orm: stack.orm, temporal: stack.temporal, databaseUrl: stack.config.databaseUrl, researchTaskQueue: stack.config.temporal.taskQueue,
      logger: createLogger('test', 'silent'), firstAttempts: { webhooks, clock: () => new Date() }, attemptsPerEndpoint: PER_ENDPOINT,
    }));
  }
}, 120_000);
afterAll(async () => {
  for (const dispatcher of dispatchers) await dispatcher.stop();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await stack?.stop();
});

async function endpointAt(path: string) {
  const accountId = await stack.createAccount('growth');
  const { endpoint } = await createEndpoint(em(), webhooks.secretKey, { accountId, url: `${receiverUrl}${path}`, events: ['research.completed'] }, new Date());
  return { accountId, endpointId: endpoint.id };
}

it('keeps at most the cap of attempts to one endpoint under way, delivers each event once, and lets another endpoint pass', async () => {
  const slow = await endpointAt('/slow');
  const other = await endpointAt('/other');
  const burst = await Promise.all(Array.from({ length: 15 }, () => enqueueTestEvent(em(), slow.accountId, slow.endpointId, new Date())));
  const few = await Promise.all(Array.from({ length: 2 }, () => enqueueTestEvent(em(), other.accountId, other.endpointId, new Date())));
  await until(async () => {
    const rows = await listDeliveries(em(), slow.accountId, slow.endpointId);
    return rows.length === 15 && rows.every((row) => row.status === 'delivered');
  }, 30_000);
  expect(peak.get('/slow')).toBe(PER_ENDPOINT);
  expect(arrivals.filter((each) => each.path === '/slow').map((each) => each.id).sort()).toEqual([...burst].sort());
  // The other account's deliveries did not wait for the burst: both arrived before its last.
  const lastSlow = Math.max(...arrivals.filter((each) => each.path === '/slow').map((each) => each.at));
  const otherArrivals = arrivals.filter((each) => each.path === '/other');
  expect(otherArrivals.map((each) => each.id).sort()).toEqual([...few].sort());
  expect(Math.max(...otherArrivals.map((each) => each.at))).toBeLessThan(lastSlow);
}, 60_000);
