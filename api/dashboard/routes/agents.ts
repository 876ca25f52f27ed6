import Router from '@koa/router';
import { AppError } from '../../../domain/errors.ts';
import { listConnectedAgents, revokeAgent } from '../../../services/accounts/agents.ts';
import { mcpResourceOf } from '../agent-authorization.ts';
import type { DashboardState } from '../guard.ts';

/**
 * The AI agents' API of the dashboard (docs/mcp.md#hosted-agents-oauth): the MCP server's
 * address, the agents the owner allowed (OAuth clients with a grant from this
 * owner), and revoking one, which its very next call feels (401).
 */
export function agentsRouter({ publicUrl }: { publicUrl: string }): Router<DashboardState> {
  const router = new Router<DashboardState>();
  router.get('/agents', async (ctx) => {
    ctx.body = { mcpUrl: mcpResourceOf(publicUrl), agents: await listConnectedAgents(ctx.state.em, ctx.state.user.id) };
  });
  router.delete('/agents/:clientId', async (ctx) => {
    const clientId = ctx.params.clientId ?? '';
    if (clientId.length === 0 || clientId.length > 2048) throw new AppError('invalid_request', 'clientId: name a connected agent.', { field: 'clientId' });
    if (!(await revokeAgent(ctx.state.em, ctx.state.user.id, clientId))) throw new AppError('not_found', 'No connected agent has that id.');
    ctx.status = 204;
  });
  return router;
}
