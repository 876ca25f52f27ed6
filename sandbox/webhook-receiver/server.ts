// A receiver of our own completion webhooks, for development and tests: it
// verifies each delivery the way a customer would, with the `standardwebhooks`
// library (https://www.standardwebhooks.com/ — `webhook-id`,
// `webhook-timestamp`, `webhook-signature: v1,<base64 HMAC-SHA256 of
// id.timestamp.body>`, several space-separated signatures allowed), and shows
// what it got on a page (/) and as JSON (/__admin/received).
// Any POST /hooks/<name> is an endpoint. Secrets to verify with are set by
// WEBHOOK_RECEIVER_SECRETS (comma-separated), the page's form or POST /__admin/secrets.
// POST /__admin/answers makes a hook answer a status (and/or slowly, and/or with
// Retry-After) for tests and demos.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';
import { escapeHtml, listen, parseJson, readBody, sendHtml, sendJson } from '../plain-http.ts';

export interface ReceivedWebhook {
  id: number;
  hook: string;
  at: string;
  webhookId: string | null;
  webhookTimestamp: string | null;
  webhookSignature: string | null;
  body: string;
  /** Null when no secret is registered: nothing to verify with. */
  isVerified: boolean | null;
  verifyError: string | null;
  /** What the receiver answered. */
  answeredStatus: number;
}

const ZAnswer = z.object({
  hook: z.string().startsWith('/hooks/'),
  /** The status to answer; omitted: back to normal (204, or 400 on a bad signature). */
  status: z.number().int().min(200).max(599).optional(),
  /** Wait this long before answering (a slow or hanging receiver). */
  delayMs: z.number().int().min(0).max(60_000).optional(),
  /** A `Retry-After` header to send with it: seconds (`"25"`) or an HTTP-date, as RFC 9110 writes them. */
  retryAfter: z.string().min(1).max(64).optional(),
  /** Only the next N deliveries; omitted: until told otherwise. */
  times: z.number().int().min(1).optional(),
});
type Answer = Omit<z.infer<typeof ZAnswer>, 'times'> & { times: number | null };

const ZSecret = z.object({ secret: z.string().startsWith('whsec_') });

export interface WebhookReceiver {
  url: string;
  port: number;
  received(hook?: string): ReceivedWebhook[];
  addSecret(secret: string): void;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

export async function startWebhookReceiver(options: { port?: number; host?: string; secrets?: string[] } = {}): Promise<WebhookReceiver> {
  const secrets = new Set(options.secrets ?? []);
  let received: ReceivedWebhook[] = [];
  const answers = new Map<string, Answer>();
  let nextId = 1;

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendJson(res, 500, { error: String(error) }));
  });

  function verify(body: string, req: IncomingMessage): { isVerified: boolean | null; verifyError: string | null } {
    if (secrets.size === 0) return { isVerified: null, verifyError: null };
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    let lastError = 'no secret matched';
    for (const secret of secrets) {
      try {
        new Webhook(secret).verify(body, headers);
        return { isVerified: true, verifyError: null };
      } catch (error) {
        lastError = (error as Error).message;
      }
    }
    return { isVerified: false, verifyError: lastError };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://receiver');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/') return sendHtml(res, page(received, secrets.size));
    if (req.method === 'GET' && path === '/__admin/received') {
      const hook = url.searchParams.get('hook');
      return sendJson(res, 200, { received: hook ? received.filter((each) => each.hook === hook) : received });
    }
    if (req.method === 'DELETE' && path === '/__admin/received') {
      received = [];
      answers.clear();
      return sendJson(res, 200, { deleted: true });
    }
    if (req.method === 'POST' && path === '/__admin/secrets') {
      const isForm = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
      const raw = await readBody(req, MAX_BODY_BYTES);
      const parsed = ZSecret.safeParse(isForm ? Object.fromEntries(new URLSearchParams(raw)) : parseJson(raw));
      if (!parsed.success) return sendJson(res, 400, { error: 'expected a secret starting with whsec_' });
      secrets.add(parsed.data.secret.trim());
      if (isForm) return res.writeHead(303, { location: '/' }).end();
      return sendJson(res, 200, { secrets: secrets.size });
    }
    if (req.method === 'POST' && path === '/__admin/answers') {
      const parsed = ZAnswer.safeParse(parseJson(await readBody(req, MAX_BODY_BYTES)));
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      if (parsed.data.status === undefined && parsed.data.delayMs === undefined) answers.delete(parsed.data.hook);
      else answers.set(parsed.data.hook, { ...parsed.data, times: parsed.data.times ?? null });
      return sendJson(res, 200, parsed.data);
    }
    if (req.method === 'POST' && path.startsWith('/hooks/')) {
      const body = await readBody(req, MAX_BODY_BYTES);
      const verdict = verify(body, req);
      const answer = answers.get(path);
      if (answer && answer.times !== null && --answer.times <= 0) answers.delete(path);
      const status = answer?.status ?? (verdict.isVerified === false ? 400 : 204);
      received.push({
        id: nextId++,
        hook: path,
        at: new Date().toISOString(),
        webhookId: header(req, 'webhook-id'),
        webhookTimestamp: header(req, 'webhook-timestamp'),
        webhookSignature: header(req, 'webhook-signature'),
        body,
        ...verdict,
        answeredStatus: status,
      });
      if (answer?.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (res.destroyed) return;
      return res.writeHead(status, answer?.retryAfter ? { 'retry-after': answer.retryAfter } : {}).end();
    }
    sendJson(res, 404, { error: `no such route: ${req.method} ${path}` });
  }

  const listening = await listen(http, options.port, options.host);
  return {
    url: listening.url,
    port: listening.port,
    received: (hook) => (hook ? received.filter((each) => each.hook === hook) : received),
    addSecret: (secret) => void secrets.add(secret),
    close: listening.close,
  };
}

const header = (req: IncomingMessage, name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : null);

function pretty(body: string): string {
  const parsed = parseJson(body);
  return parsed === undefined ? body : JSON.stringify(parsed, null, 2);
}

function page(received: ReceivedWebhook[], secretCount: number): string {
  const verdict = (each: ReceivedWebhook) =>
    each.isVerified === null ? 'not verified (no secret registered)' : each.isVerified ? 'signature verified' : `signature INVALID: ${each.verifyError}`;
  const items = received
    .slice()
    .reverse()
    .map((each) => {
      const type = (parseJson(each.body) as { type?: string } | undefined)?.type ?? '(not JSON)';
      return `<li><p><strong>${escapeHtml(type)}</strong> to ${escapeHtml(each.hook)} at ${escapeHtml(each.at)}: ${escapeHtml(verdict(each))}; answered ${each.answeredStatus}</p>
<p>webhook-id <code>${escapeHtml(each.webhookId ?? '')}</code>, webhook-timestamp <code>${escapeHtml(each.webhookTimestamp ?? '')}</code></p>
<details><summary>Body</summary><pre style="white-space:pre-wrap">${escapeHtml(pretty(each.body))}</pre></details></li>`;
    })
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Webhook receiver stand-in</title></head>
<body style="font-family:system-ui,sans-serif;margin:2rem"><main><h1>Webhook receiver stand-in</h1>
<p>Add an endpoint such as <code>/hooks/dev</code> on this server on the dashboard's Webhooks page, then paste its signing secret here to verify each delivery's signature. JSON: <a href="/__admin/received">/__admin/received</a>.</p>
<form method="post" action="/__admin/secrets"><label for="secret">Signing secret (whsec_…)</label> <input id="secret" name="secret" size="50" autocomplete="off"> <button type="submit">Verify with this secret</button></form>
<p>${secretCount} secret(s) registered.</p>
${items ? `<ol>${items}</ol>` : '<p>Nothing received yet.</p>'}</main></body></html>`;
}
