// Shared HTTP plumbing of the provider clients: one attempt timeout, bounded
// retries with backoff that honour Retry-After, and failures sorted into the
// kinds the waterfall and the activity layer act on.
import { withCallAttributes } from '../../lib/tracing.ts';

/**
 * `credentials`, `quota` and `rejected` (the provider refused our request as
 * malformed) cannot be fixed by retrying; `rate_limited` and `unavailable` can.
 * `protocol`: the provider answered 2xx without the collection its documentation
 * promises (no `posts`, `data`, `articles`): our client and its API disagree,
 * which retrying cannot fix, but the part is unavailable this run, never "none".
 */
export type ProviderFailureKind = 'credentials' | 'quota' | 'rejected' | 'rate_limited' | 'unavailable' | 'protocol';

export const PROVIDER_UNAVAILABLE = 'ProviderUnavailable';

export class ProviderError extends Error {
  readonly kind: ProviderFailureKind;
  readonly api: string;
  readonly status: number | null;
  constructor(kind: ProviderFailureKind, api: string, status: number | null, message: string) {
    super(`${api}: ${message}`);
    this.name = 'ProviderError';
    this.kind = kind;
    this.api = api;
    this.status = status;
  }
}

/** Matches pino's call style; the clients never log request headers (they carry keys). */
export interface ProviderLogger {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  debug(details: object, message: string): void;
}

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After beyond this is not waited for: the call fails as rate_limited instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 250, maxDelayMs: 4_000, maxRetryAfterMs: 20_000 };

export interface HttpDeps {
  fetch: typeof fetch;
  logger: ProviderLogger;
  timeoutMs: number;
  retry: RetryPolicy;
  sleep?: (ms: number) => Promise<void>;
}

export interface JsonRequest {
  api: string;
  url: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: unknown;
  /** Provider-specific reading of an error body (some say "quota" with a 401 or 429). */
  classify?: (status: number, body: unknown) => ProviderFailureKind | undefined;
  /**
   * Provider-specific reading of a 429's headers: when its limit resets. Default:
   * `Retry-After` only. PDL sends `x-ratelimit-reset`, Apollo its window counters.
   */
  rateLimitReset?: (headers: Headers, nowMs: number) => RateLimitReset | null;
}

/** When a provider's rate-limit window reopens, read from its documented headers. */
export interface RateLimitReset {
  waitMs: number;
  /** The window named by the headers (`minute`, `hour`, `day`), for the log. */
  window?: string;
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;

function defaultKind(status: number): ProviderFailureKind {
  if (status === 401 || status === 403) return 'credentials';
  if (status === 402) return 'quota';
  if (status === 408 || status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'rejected';
}

/** Seconds or an HTTP date, as RFC 9110 allows; null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function retryAfterReset(headers: Headers, nowMs: number): RateLimitReset | null {
  const waitMs = retryAfterMs(headers.get('retry-after'), nowMs);
  return waitMs === null ? null : { waitMs };
}

async function readBody(response: Response): Promise<unknown> {
  // Streamed with a cap: a misbehaving provider must not fill our memory.
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > MAX_RESPONSE_BYTES) throw new Error('response too large');
      chunks.push(chunk);
    }
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

type Attempt = { response: JsonResponse } | { failure: ProviderError; reset: RateLimitReset | null };

async function attemptOnce(deps: HttpDeps, request: JsonRequest): Promise<Attempt> {
  const { api } = request;
  let response: Response;
  let body: unknown;
  try {
    response = await deps.fetch(request.url, {
      method: request.method ?? 'GET',
      headers: { accept: 'application/json', ...(request.body === undefined ? {} : { 'content-type': 'application/json' }), ...request.headers },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(deps.timeoutMs),
      // A provider API has no business redirecting; following could leak the key elsewhere.
      redirect: 'error',
    });
    body = await readBody(response);
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    const reason = timedOut ? `timed out after ${deps.timeoutMs} ms` : `network error: ${(error as Error).message}`;
    return { failure: new ProviderError('unavailable', api, null, reason), reset: null };
  }
  if (response.ok || response.status === 404) return { response: { status: response.status, body } };
  const kind = request.classify?.(response.status, body) ?? defaultKind(response.status);
  if (kind === 'credentials' || kind === 'quota' || kind === 'rejected') {
    // Loud on purpose: someone has to fix a key, a plan or our request. Never log the key.
    deps.logger.error({ api, status: response.status, kind }, `provider ${kind} failure: not retried`);
    throw new ProviderError(kind, api, response.status, `${kind} failure (HTTP ${response.status})`);
  }
  const failure = new ProviderError(kind, api, response.status, `HTTP ${response.status}`);
  const now = Date.now();
  const reset = (kind === 'rate_limited' ? request.rateLimitReset?.(response.headers, now) : null) ?? retryAfterReset(response.headers, now);
  return { failure, reset };
}

/**
 * Sends one JSON request with retries. Resolves with 2xx and 404 replies
 * (404 is "no match" for most providers); rejects with a ProviderError.
 */
export async function requestJson(deps: HttpDeps, request: JsonRequest): Promise<JsonResponse> {
  const sleep = deps.sleep ?? realSleep;
  const { api } = request;
  for (let attempt = 1; ; attempt++) {
    // Each attempt's HTTP span names its provider and attempt (never the URL's e-mail: lib/trace-attributes.ts).
    const outcome = await withCallAttributes({ provider: api.split('.')[0], 'provider.api': api, attempt }, () => attemptOnce(deps, request));
    if ('response' in outcome) return outcome.response;
    const { failure, reset } = outcome;
    const waitMs = reset?.waitMs ?? null;
    if (waitMs !== null && waitMs > deps.retry.maxRetryAfterMs) {
      // An hourly or daily cap: waiting would eat the activity's budget. The part
      // is unavailable this run (never "not found"); one warn says until when.
      const resetsAt = new Date(Date.now() + waitMs).toISOString();
      deps.logger.warn({ api, provider: api.split('.')[0], window: reset?.window ?? null, resetsAt }, 'provider rate limit resets beyond this run\'s budget: part unavailable this run');
      throw failure;
    }
    if (attempt >= deps.retry.maxAttempts) {
      deps.logger.warn({ api, attempts: attempt, reason: failure.message }, 'provider unavailable after retries');
      throw failure;
    }
    const backoff = Math.min(deps.retry.maxDelayMs, deps.retry.baseDelayMs * 2 ** (attempt - 1));
    const delay = waitMs ?? Math.round(backoff * (0.5 + Math.random() / 2));
    deps.logger.debug({ api, attempt, delayMs: delay, reason: failure.message }, 'retrying provider call');
    await sleep(delay);
  }
}
