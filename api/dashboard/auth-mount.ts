import { fromNodeHeaders } from 'better-auth/node';
import type { Context, Middleware } from 'koa';
import getRawBody from 'raw-body';
import { AppError } from '../../domain/errors.ts';
import { admitSignInAttempt } from '../../services/accounts/sign-in-attempts.ts';
import { refuseNulCharacters } from '../nul-characters.ts';
import { MAX_BODY_BYTES } from '../read-json-body.ts';
import type { RequestState } from '../deps.ts';
import { AUTH_BASE_PATH, CLIENT_ADDRESS_HEADER, type DashboardAuth } from './auth.ts';
import type { DashboardConfig } from './config.ts';

const SIGN_IN_PATH = `${AUTH_BASE_PATH}/sign-in/email`;

/**
 * Hands `/app/api/auth/*` to better-auth as a Fetch Request. Reading the body
 * here (rather than through better-auth's Node adapter) lets sign-in be limited
 * per e-mail address too, and lets the client address come from the socket or
 * the configured proxy header, never from whatever header a client sends.
 */
export function authMount(auth: DashboardAuth, config: DashboardConfig, clock: () => Date): Middleware<RequestState> {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(`${AUTH_BASE_PATH}/`)) return next();
    const body = ctx.method === 'GET' || ctx.method === 'HEAD' ? undefined : await readBody(ctx);
    refuseNulCharacters(parsedOrUndefined(body));
    if (ctx.path === SIGN_IN_PATH && ctx.method === 'POST') await limitPerEmail(ctx, body, clock());
    const response = await auth.handler(
      new Request(new URL(ctx.originalUrl, config.publicUrl), { method: ctx.method, headers: forwardedHeaders(ctx, config), body: body ? new Uint8Array(body) : undefined }),
    );
    ctx.status = response.status;
    for (const [name, value] of response.headers) if (name !== 'set-cookie') ctx.set(name, value);
    for (const cookie of response.headers.getSetCookie()) ctx.append('Set-Cookie', cookie);
    const text = await response.text();
    if (response.status === 429) return answerRateLimited(ctx, response.headers.get('x-retry-after'));
    // OAuth clients read RFC 6749's error bodies ({error, error_description}) as better-auth writes them.
    const isOAuthEndpoint = ctx.path.startsWith(`${AUTH_BASE_PATH}/oauth2/`);
    ctx.body = response.status >= 400 && !isOAuthEndpoint ? asAppErrorBody(text, response.status) : text;
  };
}

/**
 * better-auth's limit (e.g. 5 sign-ups a minute per client address) answers "try again later" with its wait only in
 * X-Retry-After: the reply says when, in words and in the standard Retry-After header (RFC 9110 §10.2.3).
 */
function answerRateLimited(ctx: Context, retryAfterHeader: string | null): void {
  const seconds = Math.max(1, Math.ceil(Number(retryAfterHeader) || 60));
  ctx.remove('X-Retry-After');
  ctx.set('Retry-After', String(seconds));
  ctx.body = { error: 'too_many_attempts', message: `Too many attempts from your address. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`, retryAfterSeconds: seconds };
}

function parsedOrUndefined(body: Buffer | undefined): unknown {
  try {
    return body ? JSON.parse(body.toString('utf8')) : undefined;
  } catch {
    return undefined; // better-auth answers a malformed body itself
  }
}

async function readBody(ctx: Context): Promise<Buffer> {
  try {
    return await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('content-length') || undefined });
  } catch {
    throw new AppError('payload_too_large', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`);
  }
}

async function limitPerEmail(ctx: Context & { state: RequestState }, body: Buffer | undefined, now: Date): Promise<void> {
  let email: unknown;
  try {
    email = (JSON.parse(body?.toString('utf8') ?? '') as { email?: unknown }).email;
  } catch {
    return; // better-auth answers the malformed body itself
  }
  if (typeof email !== 'string' || email.length > 320) return;
  const { isAdmitted, retryAfterSeconds } = await admitSignInAttempt(ctx.state.em, email, now);
  if (isAdmitted) return;
  ctx.set('Retry-After', String(retryAfterSeconds));
  // The owner need not wait out someone else's guesses: a link to the mailbox signs in whatever this count says.
  throw new AppError('too_many_attempts', `Too many sign-in attempts for this address; try again in ${Math.ceil(retryAfterSeconds / 60)} minutes, or sign in with a link sent to your e-mail.`, { signInLink: true });
}

function forwardedHeaders(ctx: Context, config: DashboardConfig): Headers {
  const headers = fromNodeHeaders(ctx.req.headers);
  const fromProxy = config.clientIpHeader ? ctx.get(config.clientIpHeader).split(',')[0]?.trim() : '';
  headers.set(CLIENT_ADDRESS_HEADER, fromProxy || ctx.req.socket.remoteAddress || 'unknown');
  return headers;
}

/** better-auth answers `{ code, message }`; the dashboard reads every error as `{ error, message }`. */
function asAppErrorBody(text: string, status: number): { error: string; message?: string } {
  try {
    const parsed = JSON.parse(text) as { code?: unknown; message?: unknown };
    const code = typeof parsed.code === 'string' ? parsed.code.toLowerCase() : status === 429 ? 'too_many_attempts' : `http_${status}`;
    return { error: code, ...(typeof parsed.message === 'string' ? { message: parsed.message } : {}) };
  } catch {
    return { error: status === 429 ? 'too_many_attempts' : `http_${status}` };
  }
}
