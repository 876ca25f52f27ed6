import Router from '@koa/router';
import { AGENT_SCOPES } from '../../domain/agents/scopes.ts';
import { AUTH_BASE_PATH } from '../dashboard/auth.ts';
import { mcpResourceOf } from '../dashboard/agent-authorization.ts';
import type { ApiDeps, RequestState } from '../deps.ts';

const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';

/** RFC 9728 §3.1: the metadata of the resource `https://host/mcp` is at `/.well-known/oauth-protected-resource/mcp`. */
export const protectedResourceMetadataUrl = (publicUrl: string) => `${publicUrl}${PROTECTED_RESOURCE_PATH}/mcp`;

/**
 * The discovery documents an MCP client reads before it signs in
 * (docs/mcp.md#hosted-agents-oauth): the protected resource metadata naming
 * the dashboard's sign-in as the authorization server, and that server's own
 * metadata at the RFC 8414 address of its issuer (`…/app/api/auth`), which
 * better-auth cannot serve from under its base path. Without hosted agents'
 * OAuth configured, neither exists.
 */
export function wellKnownRouter(deps: ApiDeps): Router<RequestState> {
  const router = new Router<RequestState>();
  const agentAuthorization = deps.agentAuthorization;
  if (!agentAuthorization) return router;
  const protectedResource = {
    resource: mcpResourceOf(deps.publicUrl),
    resource_name: 'Prospect Enrichment MCP server',
    authorization_servers: [agentAuthorization.issuer],
    scopes_supported: [...AGENT_SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${deps.publicUrl}/app/agents`,
  };
  for (const path of [`${PROTECTED_RESOURCE_PATH}/mcp`, PROTECTED_RESOURCE_PATH]) {
    router.get(path, (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=300');
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = protectedResource;
    });
  }
  for (const path of [`${AUTHORIZATION_SERVER_PATH}${AUTH_BASE_PATH}`, AUTHORIZATION_SERVER_PATH]) {
    router.get(path, async (ctx) => {
      ctx.set('Cache-Control', 'public, max-age=15');
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = await agentAuthorization.serverMetadata();
    });
  }
  return router;
}
