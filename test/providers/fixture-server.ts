import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FixtureReply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/**
 * A local HTTP server that answers with a provider's documented example replies,
 * so the real clients are exercised over real HTTP, and that records what the
 * client sent (method, path, query, headers, body) for the request assertions.
 */
export async function startFixtureServer() {
  const requests: RecordedRequest[] = [];
  let replies: FixtureReply[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fixture');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    const reply = replies.length > 1 ? replies.shift()! : replies[0] ?? { status: 500, body: { error: 'no fixture set' } };
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The replies for the next calls, in order; the last one repeats. */
    reply(...next: FixtureReply[]) {
      replies = next;
      requests.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
