import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoadBalancer {
  url: string;
  /** Requests answered 502 because their backend went away under them (the client retries). */
  cutShort(): number;
  close(): Promise<void>;
}

/** How often each backend's readiness is read: a draining API leaves the rotation within this. */
const PROBE_INTERVAL_MS = 250;

/**
 * A small round-robin load balancer in front of the API processes, as a
 * cluster's would be: a backend is in the rotation while its `/readyz` says
 * 200, so a draining API (readiness false first) gets no new requests. A
 * request whose backend dies under it is answered 502, as a real balancer
 * does; callers retry with their Idempotency-Key.
 */
export async function startLoadBalancer(backends: string[]): Promise<LoadBalancer> {
  const ready = new Set<string>();
  let next = 0;
  let cut = 0;
  let isClosed = false;

  async function probe(): Promise<void> {
    while (!isClosed) {
      await Promise.all(
        backends.map(async (backend) => {
          try {
            const reply = await fetch(`${backend}/readyz`, { signal: AbortSignal.timeout(1_000) });
            await reply.arrayBuffer();
            if (reply.ok) ready.add(backend);
            else ready.delete(backend);
          } catch {
            ready.delete(backend);
          }
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS));
    }
  }
  const probing = probe();

  function forward(req: IncomingMessage, res: ServerResponse): void {
    const rotation = backends.filter((backend) => ready.has(backend));
    if (rotation.length === 0) {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"error":"unavailable","message":"No API is ready."}');
      return;
    }
    const target = new URL(req.url ?? '/', rotation[next++ % rotation.length]);
    const upstream = request(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => {
      cut += 1;
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad_gateway","message":"The API went away."}');
      else res.destroy();
    });
    req.pipe(upstream);
  }

  const server: Server = createServer(forward);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  // Until the first probe round, nothing is in the rotation.
  await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS * 2));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cutShort: () => cut,
    async close() {
      isClosed = true;
      await probing;
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
