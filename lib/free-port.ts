import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const FALLBACK_EPHEMERAL_START = 32_768;
const LOWEST_PORT = 10_000;
const ATTEMPTS = 50;

/**
 * A free loopback port for a server that starts a little later. Chosen below
 * the kernel's ephemeral range: a port the kernel hands out (port 0) is also
 * what it gives the next outgoing connection (a database client, the Temporal
 * server's own), which can take it before our server listens (EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (below - LOWEST_PORT));
    if (await isFree(port)) return port;
  }
  throw new Error(`no free port between ${LOWEST_PORT} and ${below} after ${ATTEMPTS} tries`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return start && start > LOWEST_PORT + 1_000 ? start : FALLBACK_EPHEMERAL_START;
  } catch {
    return FALLBACK_EPHEMERAL_START;
  }
}
