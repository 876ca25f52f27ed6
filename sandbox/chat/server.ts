// A chat-webhook receiver speaking Slack's incoming-webhook format, for
// development and tests. From Slack's own pages: api.slack.com/messaging/webhooks
// (POST JSON with `text` and optional `blocks`; success is HTTP 200 with the
// plain-text body `ok`) and api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks
// (errors as plain-text codes: 400 invalid_payload / no_text, 403 action_prohibited,
// 404 channel_not_found / no_service, 410 channel_is_archived, 500 rollup_error).
// Any path /services/<T>/<B>/<secret> is a hook; POST /__admin/hooks sets what one answers.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { escapeHtml, listen, parseJson, readBody, sendHtml, sendJson, sendText } from '../plain-http.ts';

export interface ChatMessage {
  id: number;
  hook: string;
  at: string;
  text: string;
  blocks: unknown[];
}

/** The documented answers a hook can be told to give. */
export const SLACK_ERRORS = {
  invalid_payload: 400, no_text: 400, user_not_found: 400,
  action_prohibited: 403, invalid_token: 403, posting_to_general_channel_denied: 403,
  channel_not_found: 404, no_service: 404, no_team: 404,
  channel_is_archived: 410, no_active_hooks: 410,
  rollup_error: 500,
  // Over the pace (about one a second per webhook): 429 with Retry-After (api.slack.com/apis/rate-limits).
  rate_limited: 429,
} as const;

const ZHookAnswer = z.object({
  /** e.g. `/services/T0/B0/secret`. */
  hook: z.string().startsWith('/services/'),
  /** The error to answer; omitted: `ok` again. */
  error: z.enum(Object.keys(SLACK_ERRORS) as [keyof typeof SLACK_ERRORS, ...Array<keyof typeof SLACK_ERRORS>]).optional(),
  /** Only the next N posts; omitted: until told otherwise (a deleted hook stays deleted). */
  times: z.number().int().min(1).optional(),
  /** With `rate_limited`: the Retry-After it sends, in seconds (default 1). */
  retryAfterSeconds: z.number().int().min(1).optional(),
});

export interface ChatSandbox {
  url: string;
  port: number;
  messages(hook?: string): ChatMessage[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 256 * 1024;

export async function startChatSandbox(options: { port?: number; host?: string } = {}): Promise<ChatSandbox> {
  let messages: ChatMessage[] = [];
  const answers = new Map<string, { error: keyof typeof SLACK_ERRORS; times: number | null; retryAfterSeconds: number }>();
  let nextId = 1;

  const http = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendText(res, 500, error instanceof Error ? error.message : String(error));
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/') return sendHtml(res, page(messages));
    if (req.method === 'GET' && (path === '/__admin/messages' || path === '/__admin/calls')) {
      const hook = url.searchParams.get('hook');
      return sendJson(res, 200, { messages: hook ? messages.filter((message) => message.hook === hook) : messages });
    }
    if (req.method === 'DELETE' && path === '/__admin/messages') {
      messages = [];
      answers.clear();
      return sendJson(res, 200, { deleted: true });
    }
    if (req.method === 'POST' && path === '/__admin/hooks') {
      const parsed = ZHookAnswer.safeParse(parseJson(await readBody(req, MAX_BODY_BYTES)));
      if (!parsed.success) return sendJson(res, 400, { error: z.prettifyError(parsed.error) });
      if (parsed.data.error) answers.set(parsed.data.hook, { error: parsed.data.error, times: parsed.data.times ?? null, retryAfterSeconds: parsed.data.retryAfterSeconds ?? 1 });
      else answers.delete(parsed.data.hook);
      return sendJson(res, 200, parsed.data);
    }
    if (req.method === 'POST' && /^\/services\/[^/]+\/[^/]+\/[^/]+$/.test(path)) {
      const answer = answers.get(path);
      if (answer) {
        if (answer.times !== null && --answer.times <= 0) answers.delete(path);
        if (answer.error === 'rate_limited') res.setHeader('retry-after', String(answer.retryAfterSeconds));
        return sendText(res, SLACK_ERRORS[answer.error], answer.error);
      }
      const body = parseJson(await readBody(req, MAX_BODY_BYTES));
      if (body === undefined || typeof body !== 'object' || body === null) return sendText(res, 400, 'invalid_payload');
      const { text, blocks } = body as { text?: unknown; blocks?: unknown };
      if ((text === undefined || text === '') && !Array.isArray(blocks)) return sendText(res, 400, 'no_text');
      if (blocks !== undefined && (!Array.isArray(blocks) || blocks.length > 50)) return sendText(res, 400, 'invalid_blocks');
      messages.push({ id: nextId++, hook: path, at: new Date().toISOString(), text: typeof text === 'string' ? text : '', blocks: Array.isArray(blocks) ? blocks : [] });
      return sendText(res, 200, 'ok');
    }
    // Slack answers an unknown hook path with no_service.
    if (req.method === 'POST' && path.startsWith('/services/')) return sendText(res, 404, 'no_service');
    sendJson(res, 404, { error: `no such route: ${req.method} ${path}` });
  }

  const listening = await listen(http, options.port, options.host);
  return {
    url: listening.url,
    port: listening.port,
    messages: (hook) => (hook ? messages.filter((message) => message.hook === hook) : messages),
    close: listening.close,
  };
}

function page(messages: ChatMessage[]): string {
  const items = messages
    .slice()
    .reverse()
    .map((message) => `<li><p><strong>${escapeHtml(message.hook)}</strong> at ${escapeHtml(message.at)}</p><pre style="white-space:pre-wrap">${escapeHtml(message.text)}</pre>
<details><summary>Blocks</summary><pre style="white-space:pre-wrap">${escapeHtml(JSON.stringify(message.blocks, null, 2))}</pre></details></li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Chat webhook stand-in</title></head>
<body style="font-family:system-ui,sans-serif;margin:2rem"><main><h1>Chat webhook stand-in</h1>
<p>Any URL <code>/services/&lt;team&gt;/&lt;bot&gt;/&lt;secret&gt;</code> on this server is a Slack-style incoming webhook. JSON: <a href="/__admin/messages">/__admin/messages</a>.</p>
${items ? `<ol>${items}</ol>` : '<p>No messages yet.</p>'}</main></body></html>`;
}
