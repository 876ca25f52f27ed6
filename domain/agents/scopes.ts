/**
 * What an OAuth-connected agent may do (docs/mcp.md#hosted-agents-oauth):
 * `research:read` reads research, lists and the account; `research:write`
 * spends credits (a research, a list). An API key may do both.
 */
export const AGENT_SCOPES = ['research:read', 'research:write'] as const;
export type AgentScope = (typeof AGENT_SCOPES)[number];

/** The scope each tool needs; a tool not named here needs research:read. */
const WRITE_TOOLS = new Set(['research_prospect', 'research_list']);

export function scopeForTool(toolName: string): AgentScope {
  return WRITE_TOOLS.has(toolName) ? 'research:write' : 'research:read';
}

/** What the consent page and the AI agents page say each scope allows. */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  'research:read': 'Read your research, lists, credits and products',
  'research:write': 'Start research and lists, which spend your credits',
  offline_access: 'Stay connected until you revoke it',
};
