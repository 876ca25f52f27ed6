import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerError } from 'smtp-server';
import { z } from 'zod';
import { inboxPage, messagePage } from './inbox-page.ts';
import { createMailbox, ZMailFaults, type CapturedMessage, type MailFaults } from './mailbox.ts';

export interface MailSandboxOptions {
  /** 0 picks a free port. */
  smtpPort?: number;
  httpPort?: number;
  host?: string;
}

export interface MailSandbox {
  smtpPort: number;
  httpPort: number;
  host: string;
  /** The web inbox; `${url}/__admin/messages` is the JSON list. */
  url: string;
  messages(to?: string): CapturedMessage[];
  /** The first message to `to` that `matches`, once it has arrived; throws after `timeoutMs`. */
  waitForMessage(to: string, matches?: (message: CapturedMessage) => boolean, timeoutMs?: number): Promise<CapturedMessage>;
  clear(): void;
  setFaults(faults: MailFaults): void;
  close(): Promise<void>;
}

const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
const MAX_ADMIN_BODY_BYTES = 16 * 1024;

// Reply texts from RFC 5321 §4.2.2 / §4.2.3; the enhanced codes (RFC 3463) follow common servers.
const REJECTED = 'Requested action not taken: mailbox unavailable (sandbox fault)';
const DEFERRED = 'Requested action aborted: local error in processing (sandbox fault)';

function smtpError(responseCode: number, message: string): SMTPServerError {
  return Object.assign(new Error(message), { responseCode });
}

/**
 * An SMTP server that keeps what it receives, with a web inbox and a JSON API:
 * GET / (inbox), GET /messages/:id, GET /__admin/messages[?to=], DELETE /__admin/messages,
 * POST /__admin/faults ({ reject?, rejectNext?, deferNext?, rejectTo? }), GET /__admin/calls.
 */
export async function startMailSandbox(options: MailSandboxOptions = {}): Promise<MailSandbox> {
  const host = options.host ?? '127.0.0.1';
  const mailbox = createMailbox();

  const smtp = new SMTPServer({
    // Plain local SMTP: no TLS (its built-in certificate is a published test key) and no AUTH.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    banner: 'Prospect Enrichment mail sandbox',
    size: MAX_MESSAGE_BYTES,
    closeTimeout: 1_000,
    onRcptTo(address, _session, callback) {
      const verdict = mailbox.verdictForRecipient(address.address);
      if (verdict === 'reject') return callback(smtpError(550, REJECTED));
      if (verdict === 'defer') return callback(smtpError(451, DEFERRED));
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mailbox.add({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            messageId: parsed.messageId ?? null,
            date: new Date().toISOString(),
          });
          callback();
        })
        .catch((error: unknown) => callback(smtpError(451, `Requested action aborted: ${error instanceof Error ? error.message : 'unreadable message'}`)));
    },
  });
  smtp.on('error', () => {}); // a client dropping its connection is not the sandbox's failure

  const http = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/') return sendHtml(res, 200, inboxPage(mailbox.list()));
    const opened = /^\/messages\/([0-9]+)$/.exec(path);
    if (req.method === 'GET' && opened) {
      const message = mailbox.get(opened[1]);
      return message ? sendHtml(res, 200, messagePage(message)) : sendHtml(res, 404, '<h1>No such message</h1><p><a href="/">Inbox</a></p>');
    }
    if (req.method === 'GET' && path === '/__admin/messages') return sendJson(res, 200, { messages: mailbox.list(url.searchParams.get('to') ?? undefined) });
    if (req.method === 'DELETE' && path === '/__admin/messages') {
      mailbox.clear();
      return sendJson(res, 200, { deleted: true });
    }
    if (req.method === 'GET' && path === '/__admin/faults') return sendJson(res, 200, mailbox.faults());
    if (req.method === 'POST' && path === '/__admin/faults') {
      const parsed = ZMailFaults.safeParse(await readJson(req));
      if (!parsed.success) return sendJson(res, 400, { error: `invalid faults: ${z.prettifyError(parsed.error)}` });
      return sendJson(res, 200, mailbox.setFaults(parsed.data));
    }
    if (req.method === 'GET' && path === '/__admin/calls') return sendJson(res, 200, mailbox.stats());
    sendJson(res, 404, { error: `no such route: ${req.method} ${path}` });
  }

  await listen((done) => smtp.listen(options.smtpPort ?? 0, host, done), smtp.server);
  await listen((done) => http.listen(options.httpPort ?? 0, host, done), http).catch(async (error) => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    throw error;
  });
  const smtpPort = (smtp.server.address() as AddressInfo).port;
  const httpPort = (http.address() as AddressInfo).port;

  return {
    smtpPort,
    httpPort,
    host,
    url: `http://${host}:${httpPort}`,
    messages: (to) => mailbox.list(to),
    async waitForMessage(to, matches = () => true, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = mailbox.list(to).find(matches);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no matching e-mail to ${to} within ${timeoutMs} ms (inbox holds ${mailbox.list().length})`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    clear: () => mailbox.clear(),
    setFaults: (faults) => void mailbox.setFaults(ZMailFaults.parse(faults)),
    close: async () => {
      http.closeAllConnections();
      await Promise.all([
        new Promise<void>((resolve) => http.close(() => resolve())),
        new Promise<void>((resolve) => smtp.close(() => resolve())),
      ]);
    },
  };
}

function listen(start: (done: () => void) => void, server: { once(event: 'error', listener: (error: Error) => void): unknown }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    start(resolve);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(html);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ADMIN_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return null;
  }
}
