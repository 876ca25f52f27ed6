// The few HTTP helpers the stand-ins written on node:http share (the chat
// hooks, the webhook receiver and the CRM stand-ins): a bounded body, lenient
// or strict JSON, replies and refusals, the CRM pages' shell, listening and closing.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The request's body as text, or null once it is larger than `maxBytes` (reading stops there). */
export async function readBodyUpTo(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The request's body as text; empty when it is larger than `maxBytes` (the caller then answers 400 as for any bad body). */
export async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return (await readBodyUpTo(req, maxBytes)) ?? '';
}

/** The JSON value, or undefined when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export interface BodyReaders {
  /** The body as JSON; null when it is empty or blank. */
  json(req: IncomingMessage): Promise<unknown>;
  form(req: IncomingMessage): Promise<URLSearchParams>;
}

/**
 * Body readers for a stand-in that refuses a bad body in its provider's own
 * words: they throw `tooLarge()` past `maxBytes` and `notJson()` for a body
 * that is not JSON, and the server's error handler answers what was thrown.
 */
export function bodyReaders(rules: { maxBytes: number; tooLarge(): Error; notJson(): Error }): BodyReaders {
  const text = async (req: IncomingMessage) => {
    const body = await readBodyUpTo(req, rules.maxBytes);
    if (body === null) throw rules.tooLarge();
    return body;
  };
  return {
    json: async (req) => {
      const body = await text(req);
      if (body.trim() === '') return null;
      const value = parseJson(body);
      if (value === undefined) throw rules.notJson();
      return value;
    },
    form: async (req) => new URLSearchParams(await text(req)),
  };
}

/** A refusal in a provider's own words: the stand-in's error handler answers `status` with `body` as JSON. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(JSON.stringify(body));
    this.status = status;
    this.body = body;
  }
}

/** A lost answer (a fault the CRM stand-ins inject): the call is carried out, but what it answers never arrives; the connection closes instead. */
export function loseAnswer(res: ServerResponse): void {
  res.end = (() => {
    res.socket?.destroy();
    return res;
  }) as typeof res.end;
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * A JSON reply under the content type a provider spells its own way (Salesforce:
 * `application/json;charset=UTF-8`), sent with a Content-Length as the CRMs send it
 * (`sendJson` writes its head first, so its replies are chunked).
 */
export const jsonSender =
  (contentType: string) =>
  (res: ServerResponse, status: number, body: unknown): void => {
    res.statusCode = status;
    res.setHeader('content-type', contentType);
    res.end(JSON.stringify(body));
  };

export function sendHtml(res: ServerResponse, html: string, status = 200): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}

/** Text made safe inside HTML, in element text and in attribute values of either quote. */
export const escapeHtml = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * A CRM stand-in's page (its consent screen, its pages for developers): one
 * layout, the provider's own colour on the primary button. `body` is markup
 * the caller has escaped; the title is escaped here.
 */
export function crmPage(title: string, body: string, style: { primaryColour: string }): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1a1a1a;max-width:70rem}table{border-collapse:collapse}td,th{border:1px solid #888;padding:.25rem .5rem;text-align:left;vertical-align:top}
button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}.primary{background:${style.primaryColour};color:#fff;border:0}.note{border:1px solid #888;padding:.5rem;margin:.5rem 0}</style>
</head><body><main>${body}</main></body></html>`;
}

/** Starts `http` on `port` (0: a free one) and says where it listens; `close` ends open connections too. */
export async function listen(http: Server, port = 0, host = '127.0.0.1'): Promise<{ url: string; port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const bound = (http.address() as AddressInfo).port;
  return {
    url: `http://${host}:${bound}`,
    port: bound,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
