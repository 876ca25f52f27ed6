import type { ServerResponse } from 'node:http';

/** The error body every OpenAI endpoint uses, so SDK clients map it to their own error classes. */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export class SandboxRequestError extends Error {
  readonly status: number;
  readonly body: OpenAiErrorBody;

  constructor(status: number, message: string, details: { type?: string; param?: string | null; code?: string | null } = {}) {
    super(message);
    this.name = 'SandboxRequestError';
    this.status = status;
    this.body = { error: { message, type: details.type ?? 'invalid_request_error', param: details.param ?? null, code: details.code ?? null } };
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
