import { fromNodeHeaders } from 'better-auth/node';
import type { Context, Middleware } from 'koa';
import type { z } from 'zod';
import type { IAccount } from '../../db/entities/account.ts';
import { AppError } from '../../domain/errors.ts';
import { findAccountOfUser } from '../../services/accounts/owners.ts';
import { refuseNulCharacters } from '../nul-characters.ts';
import { readJsonBody } from '../read-json-body.ts';
import type { RequestState } from '../deps.ts';
import type { DashboardAuth } from './auth.ts';
import type { DashboardConfig } from './config.ts';

export interface DashboardState extends RequestState {
  account: IAccount;
  user: { id: string; email: string; emailVerified: boolean };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * The OAuth endpoints AI agents call from their own servers: no browser, so no
 * Origin. They take no session cookie (a client's PKCE verifier, refresh token
 * or registration is the credential), so a cross-site request gains nothing.
 */
const AGENT_ENDPOINTS = new Set(['/app/api/auth/oauth2/token', '/app/api/auth/oauth2/register', '/app/api/auth/oauth2/revoke', '/app/api/auth/oauth2/introspect']);

/**
 * State-changing requests must come from the dashboard's own origin: the
 * browser's Origin header (or, without one, Fetch Metadata) says so. Session
 * cookies are SameSite=Lax already; this closes the rest (docs/dashboard.md#how-it-is-built).
 */
export function sameOriginOnly(config: DashboardConfig): Middleware {
  const origin = new URL(config.publicUrl).origin;
  return async (ctx, next) => {
    if (ctx.path.startsWith('/app/api/') && !SAFE_METHODS.has(ctx.method) && !AGENT_ENDPOINTS.has(ctx.path)) {
      const sentOrigin = ctx.get('origin');
      const isSameOrigin = sentOrigin ? sentOrigin === origin : ctx.get('sec-fetch-site') === 'same-origin';
      if (!isSameOrigin) throw new AppError('forbidden_origin', 'Requests that change something must come from the dashboard itself.');
    }
    await next();
  };
}

/** Every dashboard route below this runs for one signed-in account, and sees only its data. */
export function signedInOnly(auth: DashboardAuth, clock: () => Date): Middleware<DashboardState> {
  return async (ctx, next) => {
    const session = await auth.api.getSession({ headers: fromNodeHeaders(ctx.req.headers) });
    if (!session) throw new AppError('unauthenticated', 'Sign in to continue.');
    const account = await findAccountOfUser(ctx.state.em, session.user.id, clock());
    // A deleted account's sessions were ended; this covers one that raced the deletion.
    if (!account || account.deletionRequestedAt) throw new AppError('unauthenticated', 'Sign in to continue.');
    ctx.state.account = account;
    ctx.state.user = { id: session.user.id, email: session.user.email, emailVerified: session.user.emailVerified };
    await next();
  };
}

/** A JSON body checked against the same zod schema the browser's form uses; problems are named by field. */
export async function parseBody<T extends z.ZodType>(ctx: Context, schema: T): Promise<z.output<T>> {
  const body = await readJsonBody(ctx);
  if (body === undefined) throw new AppError('invalid_request', 'Send a JSON body with Content-Type: application/json.');
  return parseWith(schema, body);
}

export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  refuseNulCharacters(value);
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const path = issue.path.length > 0 ? issue.path.join('.') : String((issue as { keys?: string[] }).keys?.[0] ?? '_');
    fields[path] ??= issue.code === 'unrecognized_keys' ? 'This field is not accepted.' : issue.message;
  }
  const [first] = Object.entries(fields);
  throw new AppError('invalid_request', first ? `${first[0]}: ${first[1]}` : 'Invalid request.', { fields });
}
