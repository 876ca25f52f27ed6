/** Every error of the dashboard's JSON API arrives as `{ error, message, fields? }`, like the public API's. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly fields: Record<string, string>;

  constructor(status: number, body: { error?: string; message?: string; fields?: Record<string, string> }) {
    super(body.message ?? describeStatus(status));
    this.name = 'ApiError';
    this.code = body.error ?? `http_${status}`;
    this.status = status;
    this.fields = body.fields ?? {};
  }
}

/** The request never reached the server (offline, server restarting): the page offers a retry. */
export class ConnectionLost extends Error {
  constructor() {
    super('The dashboard could not reach the server. Check your connection and try again.');
    this.name = 'ConnectionLost';
  }
}

const BASE = '/app/api';

/** The one client of the dashboard's JSON API: same origin, session cookie, JSON both ways. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      credentials: 'same-origin',
      headers: init.body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': contentType(init.body) },
      // A file (a list's CSV) goes as its raw bytes; everything else as JSON.
      body: init.body === undefined ? undefined : init.body instanceof Blob ? init.body : JSON.stringify(init.body),
    });
  } catch {
    throw new ConnectionLost();
  }
  const text = await response.text();
  const body = text ? safeJson(text) : null;
  if (!response.ok) throw new ApiError(response.status, (body ?? {}) as { error?: string; message?: string });
  return body as T;
}

function contentType(body: unknown): string {
  return body instanceof Blob ? 'application/octet-stream' : 'application/json';
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function describeStatus(status: number): string {
  if (status === 429) return 'Too many attempts. Wait a moment and try again.';
  if (status >= 500) return 'Something went wrong on our side. Try again in a moment.';
  return `The request failed (HTTP ${status}).`;
}
