import { scopeForTool } from '../../domain/agents/scopes.ts';

/**
 * The scope a JSON-RPC message (or each of a batch) needs that the caller
 * lacks, or null: tools/call needs its tool's scope, resources/read needs
 * research:read. Everything else (initialize, discover, tools/list, ping)
 * needs only a valid token.
 */
export function missingScope(body: unknown, granted: readonly string[]): string | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    const needed = neededScope(message);
    if (needed && !granted.includes(needed)) return needed;
  }
  return null;
}

function neededScope(message: unknown): string | null {
  if (!message || typeof message !== 'object') return null;
  const { method, params } = message as { method?: unknown; params?: { name?: unknown } };
  if (method === 'tools/call') return scopeForTool(typeof params?.name === 'string' ? params.name : '');
  if (method === 'resources/read') return 'research:read';
  return null;
}
