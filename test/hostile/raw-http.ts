import { request } from 'node:http';

export interface RawReply {
  status: number;
  body: any;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * One HTTP request with exact bytes and headers, as a hostile client sends
 * them (fetch would fix up what we want to send broken). `chunks` are written
 * one by one with chunked transfer encoding when no content-length is given.
 * A server may answer before the whole body is sent and close the connection:
 * the reply counts, the write error does not.
 */
export function rawRequest(
  baseUrl: string,
  options: { method: string; path: string; headers?: Record<string, string | number>; body?: Buffer | string; chunks?: Buffer[] },
): Promise<RawReply> {
  const url = new URL(options.path, baseUrl);
  return new Promise((resolve, reject) => {
    let replied = false;
    const req = request(
      { host: url.hostname, port: url.port, method: options.method, path: options.path, headers: options.headers, insecureHTTPParser: false },
      (res) => {
        replied = true;
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // left as text
          }
          resolve({ status: res.statusCode ?? 0, body, text, headers: res.headers });
        });
        res.on('error', reject);
      },
    );
    req.on('error', (error) => {
      if (!replied) reject(error);
    });
    if (options.chunks) {
      void (async () => {
        for (const chunk of options.chunks!) {
          if (replied || req.destroyed) break;
          if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve).once('close', resolve));
        }
        req.end();
      })();
    } else {
      req.end(options.body);
    }
  });
}
