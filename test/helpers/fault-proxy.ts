import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP hop in front of the API that can answer 5xx on demand, the way
 * a load balancer or a crashed instance does: `failNext(n, status, {after})`
 * fails the next n requests, before they reach the API or (`after: true`)
 * after the API handled them, replacing its answer (the case an
 * Idempotency-Key exists for).
 */
export async function startFaultProxy(target: string) {
  let plan: { left: number; status: number; after: boolean } = { left: 0, status: 503, after: false };
  const seen: { method: string; path: string; status: number; idempotencyKey: string | null }[] = [];
  const server = createServer(async (req, res) => {
    const body = await read(req);
    // The control route, for test processes that only speak HTTP (the Python client's pytest).
    if (req.url === '/__fault' && req.method === 'POST') {
      const { count, status, after } = JSON.parse(body.toString('utf8')) as { count: number; status?: number; after?: boolean };
      plan = { left: count, status: status ?? 503, after: after ?? false };
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(plan));
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    const injected = plan.left > 0 ? plan : null;
    if (injected) plan = { ...plan, left: plan.left - 1 };
    const record = (status: number) => seen.push({ method: req.method ?? '', path: req.url ?? '', status, idempotencyKey: (req.headers['idempotency-key'] as string) ?? null });
    if (injected && !injected.after) {
      record(injected.status);
      return res.writeHead(injected.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'internal_error' }));
    }
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: body.length > 0 ? new Uint8Array(body) : undefined });
    const text = await answer.text();
    if (injected) {
      record(injected.status);
      return res.writeHead(injected.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'internal_error' }));
    }
    record(answer.status);
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    failNext(count: number, status = 503, options: { after?: boolean } = {}) {
      plan = { left: count, status, after: options.after ?? false };
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function read(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
