import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { answerChat, SANDBOX_FINGERPRINT } from './chat-answer.ts';
import { parseChatRequest, type ChatMessage } from './chat-request.ts';
import { SandboxRequestError, sendJson } from './openai-errors.ts';
import { createFaultState, type ActiveFaults, type ModelFaults, ZModelFaults } from './sandbox-faults.ts';
import { serveSandboxPage } from './sandbox-pages.ts';

export const SANDBOX_MODELS = ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'o4-mini', 'sandbox-model'];
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const REQUEST_LOG_SIZE = 200;

export interface ModelSandboxOptions {
  port?: number;
  host?: string;
  latencyMs?: number;
  faults?: ModelFaults;
  models?: string[];
}

/** One chat request as the sandbox saw it, for tests and `GET /__admin/calls`. */
export interface SandboxRequestRecord {
  at: string;
  /** HTTP status answered; 0 when no answer was given (faults `down` and `hang`). */
  status: number;
  fault: string;
  model: string | null;
  schemaName: string | null;
  /** The request asked for strict structured outputs. */
  isStrict: boolean;
  language: string | null;
  messages: ChatMessage[];
  error: string | null;
}

export interface ModelSandbox {
  /** Base URL for OpenAI clients, ending in `/v1`. */
  url: string;
  /** Origin for the product pages (`${origin}/products/<slug>/`). */
  origin: string;
  port: number;
  calls(): number;
  requests(): SandboxRequestRecord[];
  setFaults(faults: ModelFaults): void;
  setLatency(latencyMs: number): void;
  reset(): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible chat completions stand-in that answers from the facts in the prompt.
 * Routes: POST /v1/chat/completions, GET /v1/models; product pages GET /products/<slug>/,
 * redirect chains GET /hops/<n>/<slug>; for other processes POST /__admin/config
 * ({ faults?, latencyMs? }), GET /__admin/calls, POST /__admin/reset.
 */
export async function startModelSandbox(options: ModelSandboxOptions = {}): Promise<ModelSandbox> {
  const knownModels = new Set(options.models ?? SANDBOX_MODELS);
  const faults = createFaultState();
  let latencyMs = options.latencyMs ?? 0;
  let callCount = 0;
  let log: SandboxRequestRecord[] = [];
  const sockets = new Set<Socket>();
  if (options.faults) faults.set(options.faults);

  const record = (entry: SandboxRequestRecord) => {
    log.push(entry);
    if (log.length > REQUEST_LOG_SIZE) log = log.slice(-REQUEST_LOG_SIZE);
  };
  const reset = () => {
    faults.set({ mode: 'none' });
    latencyMs = options.latencyMs ?? 0;
    callCount = 0;
    log = [];
  };

  async function chatCompletions(req: IncomingMessage, res: ServerResponse) {
    callCount += 1;
    const fault = faults.take();
    const entry: SandboxRequestRecord = { at: new Date().toISOString(), status: 0, fault: fault.mode, model: null, schemaName: null, isStrict: false, language: null, messages: [], error: null };
    record(entry);
    try {
      await answer(req, res, entry, fault, callCount);
    } catch (error) {
      if (error instanceof SandboxRequestError) Object.assign(entry, { status: error.status, error: error.body.error.message });
      throw error;
    }
  }

  async function answer(req: IncomingMessage, res: ServerResponse, entry: SandboxRequestRecord, fault: ActiveFaults, sequence: number) {
    // Network-level faults come first: a client sees them before any HTTP answer.
    if (fault.mode === 'down') return void req.socket.destroy();
    if (fault.mode === 'hang') return;
    const body = await readJson(req);
    if (!/^Bearer\s+\S+/.test(req.headers.authorization ?? '')) {
      throw new SandboxRequestError(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).");
    }
    const request = parseChatRequest(body, knownModels);
    Object.assign(entry, { model: request.model, schemaName: request.schemaName, isStrict: request.isStrict, messages: request.messages });
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    if (fault.mode === 'rateLimit') {
      entry.status = 429;
      return sendJson(res, 429, { error: { message: 'Rate limit reached for requests (sandbox fault).', type: 'requests', param: null, code: 'rate_limit_exceeded' } }, { 'retry-after': String(fault.retryAfterSeconds) });
    }
    if (fault.mode === 'serverError') {
      entry.status = 500;
      return sendJson(res, 500, { error: { message: 'The server had an error while processing your request (sandbox fault).', type: 'server_error', param: null, code: null } });
    }
    const { completion, language } = answerChat(request, sequence, fault.mode === 'wrongSize' ? fault.wrongSize : null);
    Object.assign(entry, { status: 200, language });
    sendJson(res, 200, completion, { 'openai-model': request.model, 'x-sandbox': SANDBOX_FINGERPRINT });
  }

  async function admin(req: IncomingMessage, res: ServerResponse, path: string) {
    if (req.method === 'POST' && path === '/__admin/config') {
      const body = (await readJson(req)) as { faults?: unknown; latencyMs?: unknown };
      if (body.faults !== undefined) {
        const parsed = ZModelFaults.safeParse(body.faults);
        if (!parsed.success) throw new SandboxRequestError(400, `Invalid faults: ${z.prettifyError(parsed.error)}`, { param: 'faults' });
        faults.set(parsed.data);
      }
      if (typeof body.latencyMs === 'number' && body.latencyMs >= 0) latencyMs = body.latencyMs;
      return sendJson(res, 200, { faults: faults.get(), latencyMs });
    }
    if (req.method === 'GET' && path === '/__admin/calls') return sendJson(res, 200, { calls: callCount, requests: log });
    if (req.method === 'POST' && path === '/__admin/reset') {
      reset();
      return sendJson(res, 200, { reset: true });
    }
    sendJson(res, 404, { error: { message: `Unknown admin route ${req.method} ${path}`, type: 'invalid_request_error', param: null, code: null } });
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? '/', 'http://sandbox').pathname;
    if (path.startsWith('/__admin/')) return admin(req, res, path);
    if (req.method === 'POST' && path === '/v1/chat/completions') return chatCompletions(req, res);
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [...knownModels].map((id) => ({ id, object: 'model', created: 0, owned_by: 'sandbox' })) });
    }
    if (req.method === 'GET' && serveSandboxPage(path, res)) return;
    throw new SandboxRequestError(404, `Invalid URL (${req.method} ${path})`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      const failure = error instanceof SandboxRequestError ? error : new SandboxRequestError(500, error instanceof Error ? error.message : String(error), { type: 'server_error' });
      if (!res.headersSent) sendJson(res, failure.status, failure.body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://${options.host ?? '127.0.0.1'}:${port}`;

  return {
    url: `${origin}/v1`,
    origin,
    port,
    calls: () => callCount,
    requests: () => log.map((entry) => ({ ...entry })),
    setFaults: (next) => faults.set(next),
    setLatency: (next) => {
      latencyMs = next;
    },
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging requests keep sockets open; closing them lets the server stop at once.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new SandboxRequestError(413, 'Request body too large.');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new SandboxRequestError(400, 'We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly.)');
  }
}
