import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apolloApi } from './apollo-api.ts';
import { createChaos, type EndpointName, type FaultsConfig, type LatencyMap } from './faults.ts';
import { newsApi } from './news-api.ts';
import { pdlApi } from './pdl-api.ts';
import { keyStatus, type ProviderApi, type Reply } from './provider-api.ts';
import { handleAdmin } from './admin-routes.ts';
import { PHOTO_PREFIX, servePhoto } from './photos.ts';
import { serveSite } from './site-routes.ts';
import { socialApi } from './social-api.ts';
import { createWorld, type World } from './world.ts';

export interface ProviderWorldOptions {
  port?: number;
  host?: string;
  seed?: number;
  /** Reference date of the synthetic timeline (posts, news, role starts); default today. */
  now?: Date;
  latency?: LatencyMap;
  faults?: FaultsConfig;
  /** How long a simulated timeout holds a reply if the client does not give up. */
  timeoutHoldMs?: number;
  /** NewsAPI plan history in days (Developer: 30); default none, as on the long-history plans. */
  newsHistoryDays?: number | null;
}

export interface ProviderWorldHandle {
  url: string;
  port: number;
  world: World;
  calls(endpoint?: EndpointName): number;
  callsSnapshot(): Record<string, number>;
  resetCalls(): void;
  setFaults(faults: FaultsConfig | null): void;
  setLatency(latency: LatencyMap | null): void;
  close(): Promise<void>;
}

const APIS: ProviderApi[] = [pdlApi, apolloApi, socialApi, newsApi];
const MAX_BODY_BYTES = 64 * 1024;

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  if (reply.text !== undefined) {
    res.writeHead(reply.status, reply.headers).end(reply.text);
    return;
  }
  res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
  res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  if (size === 0) return {};
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  if (ms <= 0) return resolve();
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
});

/** Starts the stand-in for every outside data provider on one HTTP server. */
export async function startProviderWorld(options: ProviderWorldOptions = {}): Promise<ProviderWorldHandle> {
  const world = createWorld({ seed: options.seed, now: options.now });
  const chaos = createChaos(world.seed, options);
  const initial = { faults: options.faults ?? {}, latency: options.latency ?? {} };
  const plans = { newsHistoryDays: options.newsHistoryDays ?? null };
  let baseUrl = '';
  const open = new Set<ServerResponse>();

  const server = createServer(async (req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    const closed = new AbortController();
    res.on('close', () => closed.abort());
    try {
      const url = new URL(req.url ?? '/', baseUrl);
      const method = req.method ?? 'GET';
      if (url.pathname.startsWith('/__admin/')) {
        const body = method === 'POST' ? await readJson(req) : {};
        return send(res, handleAdmin(method, url, body, { chaos, world, initial }));
      }
      // The people's pictures, as a browser showing a job fetches them: no key, no faults.
      if (url.pathname.startsWith(PHOTO_PREFIX)) return servePhoto(world, url.pathname, res);
      const isSite = url.pathname.startsWith('/sites/');
      const api = APIS.find((a) => url.pathname.startsWith(`${a.prefix}/`));
      const endpoint: EndpointName | null = isSite ? 'site' : api ? api.endpointFor(method, url.pathname.slice(api.prefix.length)) : null;
      if (!endpoint) return send(res, { status: 404, body: { error: 'no such endpoint' } });
      chaos.count(endpoint);
      await sleep(chaos.delayFor(endpoint), closed.signal);
      const outcome = chaos.outcomeFor(endpoint);
      if (outcome.kind === 'timeout') {
        await sleep(chaos.state.timeoutHoldMs, closed.signal);
        return send(res, { status: 504, body: { error: 'gateway timeout' } });
      }
      if (isSite) {
        if (outcome.kind !== 'ok') return send(res, { status: outcome.kind === 'rate_limit' ? 429 : 503, text: 'unavailable', headers: { 'retry-after': String(outcome.retryAfterSeconds) } });
        return serveSite(world, url.pathname.slice('/sites'.length), res);
      }
      const provider = api!;
      if (outcome.kind !== 'ok') return send(res, provider.fault(outcome.kind, outcome.retryAfterSeconds));
      const status = keyStatus(provider.apiKey(req, url));
      if (status !== 'ok') return send(res, provider.authFailure(status));
      const body = method === 'POST' ? await readJson(req) : {};
      if (body === null) return send(res, { status: 400, body: { error: 'invalid JSON body' } });
      send(res, provider.handle(endpoint, { method, url, body, world, baseUrl, plans }));
    } catch (error) {
      send(res, { status: 500, body: { error: (error as Error).message } });
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  baseUrl = `http://${host}:${address.port}`;

  return {
    url: baseUrl,
    port: address.port,
    world,
    calls: (endpoint) => chaos.calls(endpoint),
    callsSnapshot: () => chaos.snapshot(),
    resetCalls: () => chaos.resetCalls(),
    setFaults: (faults) => chaos.setFaults(faults),
    setLatency: (latency) => chaos.setLatency(latency),
    close: () => new Promise<void>((resolve) => {
      // Held (timeout) replies would otherwise keep the server open.
      for (const res of open) res.destroy();
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
