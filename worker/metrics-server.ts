import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Worker } from '@temporalio/worker';
import { metricsRegistry } from '../lib/metrics.ts';

export interface WorkerMetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The worker's operations port: `/metrics` (our metrics, then the Temporal
 * runtime's own from its exporter on a loopback port); `/livez`, 200 while the
 * process answers at all (it touches nothing, so a Temporal or PostgreSQL blip
 * never gets a worker restarted); `/readyz` (and `/healthz`, its older name),
 * 200 while every Worker of the process polls its task queue and the process
 * is not draining: false from the first SIGTERM.
 */
export async function startWorkerMetricsServer(options: {
  host: string;
  port: number;
  /** `http://127.0.0.1:port/metrics` of the runtime's Prometheus exporter. */
  runtimeMetricsUrl: string | null;
  workers: Record<string, Worker>;
  /** True from the first SIGTERM: readiness turns false before the Workers stop polling. */
  isDraining?: () => boolean;
  /** The roles this process runs, shown by the probes. */
  roles?: readonly string[];
}): Promise<WorkerMetricsServer> {
  const server: Server = createServer(async (request, response) => {
    try {
      if (request.method === 'GET' && request.url === '/metrics') {
        const ours = await metricsRegistry.metrics();
        const runtime = options.runtimeMetricsUrl ? await runtimeMetrics(options.runtimeMetricsUrl) : '';
        response.writeHead(200, { 'content-type': metricsRegistry.contentType });
        response.end(`${ours}\n${runtime}`);
        return;
      }
      if (request.method === 'GET' && request.url === '/livez') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"status":"ok"}');
        return;
      }
      if (request.method === 'GET' && (request.url === '/readyz' || request.url === '/healthz')) {
        const workers = Object.fromEntries(Object.entries(options.workers).map(([name, worker]) => [name, worker.getState()]));
        const isDraining = options.isDraining?.() ?? false;
        const isReady = !isDraining && Object.values(workers).every((state) => state === 'RUNNING');
        response.writeHead(isReady ? 200 : 503, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ status: isReady ? 'ok' : isDraining ? 'draining' : 'unavailable', roles: options.roles ?? [], workers }));
        return;
      }
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":"not_found"}');
    } catch {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error":"internal_error"}');
    }
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function runtimeMetrics(url: string): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return response.ok ? await response.text() : `# Temporal runtime metrics unavailable: HTTP ${response.status}\n`;
  } catch (error) {
    return `# Temporal runtime metrics unavailable: ${(error as Error).message}\n`;
  }
}
