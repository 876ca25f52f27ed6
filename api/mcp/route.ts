import Router from '@koa/router';
import type { Context } from 'koa';
import { createMcpHandler, validateHostHeader } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { authenticate } from '../auth.ts';
import { MAX_BODY_BYTES } from '../read-json-body.ts';
import type { ApiDeps, RequestState } from '../deps.ts';
import { ALL_SCOPES, authInfoOf, callerOf } from './caller.ts';
import { createMcpServer } from './server.ts';

export const MCP_PATH = '/mcp';
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * `/mcp` (docs/mcp.md): the MCP server on the API process, Streamable HTTP,
 * stateless. The SDK's handler serves 2025-era clients (one fresh server per
 * request, GET and DELETE answered 405) and 2026-07-28 clients from the same
 * route. Before it: the DNS-rebinding checks (a foreign Origin or Host is 403)
 * and the API key, as on the HTTP API; the API's 64 KiB body limit and its
 * request log apply as to every route.
 */
export function mcpRouter(deps: ApiDeps): Router<RequestState> {
  const handler = createMcpHandler(({ authInfo }) => createMcpServer(deps, callerOf(authInfo)), {
    legacy: 'stateless',
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => deps.logger.debug({ err: error }, 'MCP request refused or failed'),
  });
  const serve = toNodeHandler(handler, { maxRequestBodySize: MAX_BODY_BYTES, onerror: (error) => deps.logger.error({ err: error }, 'MCP request failed') });
  const publicUrl = new URL(deps.publicUrl);
  const allowedHosts = LOOPBACK_HOSTS.includes(publicUrl.hostname) ? LOOPBACK_HOSTS : [publicUrl.hostname];

  const router = new Router<RequestState>();
  router.all(MCP_PATH, async (ctx) => {
    if (!validateHostHeader(ctx.get('host'), allowedHosts).ok) return refuse(ctx, 'This server does not answer for this Host.');
    // Browsers send Origin: only the dashboard's own may call; other clients send none.
    const origin = ctx.get('origin');
    if (origin && !isOrigin(origin, publicUrl.origin)) return refuse(ctx, 'Requests from this Origin are not allowed.');
    const auth = ctx.method === 'POST' ? authInfoOf({ ...(await authenticateForMcp(ctx, deps)), scopes: ALL_SCOPES }) : undefined;
    // The SDK writes the reply itself; the request log reads its status from the response.
    ctx.respond = false;
    ctx.status = 200;
    await serve(Object.assign(ctx.req, { auth }), ctx.res);
  });
  return router;
}

async function authenticateForMcp(ctx: Context & { state: RequestState }, deps: ApiDeps) {
  try {
    const key = await authenticate(ctx, ctx.state.em);
    await deps.keyLastUse.touch(ctx.state.em, key.keyId);
    return key;
  } catch (error) {
    ctx.set('WWW-Authenticate', 'Bearer realm="mcp", error="invalid_token", error_description="Send Authorization: Bearer <API key>"');
    throw error;
  }
}

const isOrigin = (sent: string, allowed: string) => {
  try {
    return new URL(sent).origin === allowed;
  } catch {
    return false;
  }
};

/** 403 as a JSON-RPC error: what MCP clients read (no request id is known yet). */
function refuse(ctx: Context, message: string): void {
  ctx.status = 403;
  ctx.body = { jsonrpc: '2.0', error: { code: -32000, message }, id: null };
}
