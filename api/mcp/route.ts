import Router from '@koa/router';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import { createMcpHandler, validateHostHeader } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { AGENT_SCOPES } from '../../domain/agents/scopes.ts';
import { AppError } from '../../domain/errors.ts';
import { bearerToken, invalidKey } from '../auth.ts';
import { findActiveKey } from '../../services/accounts/api-keys.ts';
import { MAX_BODY_BYTES } from '../read-json-body.ts';
import type { ApiDeps, RequestState } from '../deps.ts';
import { ALL_SCOPES, authInfoOf, callerOf, type McpCaller } from './caller.ts';
import { missingScope } from './scopes.ts';
import { createMcpServer } from './server.ts';
import { protectedResourceMetadataUrl } from './well-known.ts';

export const MCP_PATH = '/mcp';
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const API_KEY_PREFIX = 'svc_';

/**
 * `/mcp` (docs/mcp.md): the MCP server on the API process, Streamable HTTP,
 * stateless. The SDK's handler serves 2025-era clients (one fresh server per
 * request, GET and DELETE answered 405) and 2026-07-28 clients from the same
 * route. Before it: the DNS-rebinding checks (a foreign Origin or Host is 403),
 * then the caller: an API key as on the HTTP API, or an agent's OAuth access
 * token for this resource, whose scopes each tool call is checked against
 * (403 insufficient_scope). The API's 64 KiB body limit and its request log
 * apply as to every route.
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
  const resourceMetadata = protectedResourceMetadataUrl(deps.publicUrl);

  const router = new Router<RequestState>();
  router.all(MCP_PATH, async (ctx) => {
    if (!validateHostHeader(ctx.get('host'), allowedHosts).ok) return refuse(ctx, 403, 'This server does not answer for this Host.');
    // Browsers send Origin: only the dashboard's own may call; other clients send none.
    const origin = ctx.get('origin');
    if (origin && !isOrigin(origin, publicUrl.origin)) return refuse(ctx, 403, 'Requests from this Origin are not allowed.');
    let caller: McpCaller | undefined;
    let parsedBody: unknown;
    if (ctx.method === 'POST') {
      caller = await authenticateCaller(ctx, deps, resourceMetadata);
      if (!caller) return;
      if (caller.clientId !== null) {
        // An agent's token carries scopes: the tool a message calls is checked before the SDK runs it.
        const body = await readMessage(ctx);
        if (body === PARSE_ERROR) return refuse(ctx, 400, 'Parse error: the body is not JSON.', -32700);
        const scope = missingScope(body, caller.scopes);
        if (scope) {
          ctx.set('WWW-Authenticate', `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadata}", error_description="This call needs the scope ${scope}"`);
          return refuse(ctx, 403, `This call needs the scope ${scope}, which the agent was not granted. Connect the agent again and allow it.`);
        }
        parsedBody = body;
      }
    }
    // The SDK writes the reply itself; the request log reads its status from the response.
    ctx.respond = false;
    ctx.status = 200;
    await serve(Object.assign(ctx.req, { auth: caller ? authInfoOf(caller) : undefined }), ctx.res, parsedBody);
  });
  return router;
}

/**
 * An API key (`svc_…`), as on the HTTP API, or an agent's access token. A
 * missing or refused credential is 401 with the RFC 9728 pointer to the
 * protected resource metadata, where an OAuth client finds the authorization
 * server. Returns undefined when it answered.
 */
async function authenticateCaller(ctx: Context & { state: RequestState }, deps: ApiDeps, resourceMetadata: string): Promise<McpCaller | undefined> {
  const challenge = (error?: string) =>
    ctx.set('WWW-Authenticate', `Bearer resource_metadata="${resourceMetadata}", scope="${AGENT_SCOPES.join(' ')}"${error ? `, error="${error}"` : ''}`);
  let token: string;
  try {
    token = bearerToken(ctx);
  } catch (error) {
    challenge();
    throw error;
  }
  if (token.startsWith(API_KEY_PREFIX)) {
    const key = await findActiveKey(ctx.state.em, token);
    if (!key) {
      challenge('invalid_token');
      throw invalidKey();
    }
    await deps.keyLastUse.touch(ctx.state.em, key.keyId);
    return { accountId: key.accountId, keyId: key.keyId, productId: key.productId, scopes: ALL_SCOPES, clientId: null };
  }
  const agent = deps.agentAuthorization ? await deps.agentAuthorization.verify(ctx.state.em, token, deps.clock()) : null;
  if (!agent) {
    challenge('invalid_token');
    refuse(ctx, 401, 'The access token is invalid, expired, revoked or not for this server.');
    return undefined;
  }
  return { accountId: agent.accountId, keyId: null, productId: null, scopes: agent.scopes, clientId: agent.clientId };
}

const PARSE_ERROR = Symbol('parse error');

async function readMessage(ctx: Context): Promise<unknown> {
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, length: ctx.get('content-length') || undefined });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      ctx.set('Connection', 'close');
      throw new AppError('payload_too_large', `Bodies are limited to ${MAX_BODY_BYTES} bytes.`);
    }
    throw new AppError('invalid_request', 'The request body could not be read.');
  }
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    return PARSE_ERROR;
  }
}

const isOrigin = (sent: string, allowed: string) => {
  try {
    return new URL(sent).origin === allowed;
  } catch {
    return false;
  }
};

/** A refusal as a JSON-RPC error: what MCP clients read (no request id is known yet). */
function refuse(ctx: Context, status: number, message: string, code = -32000): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', error: { code, message }, id: null };
}
