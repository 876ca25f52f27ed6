import type { AuthInfo } from '@modelcontextprotocol/server';
import type { AuthenticatedKey } from '../../services/accounts/api-keys.ts';

/**
 * Who calls a tool: the account, and the key whose product context is the
 * default product. It travels from the route's authentication to the tools
 * in the SDK's AuthInfo (`extra`); the presented token never does.
 */
export interface McpCaller extends AuthenticatedKey {
  /** Granted scopes: an API key may do anything its account may. */
  scopes: string[];
}

export const ALL_SCOPES = ['research:read', 'research:write'];

export function authInfoOf(caller: McpCaller): AuthInfo {
  return { token: `key:${caller.keyId}`, clientId: `api-key:${caller.keyId}`, scopes: caller.scopes, extra: { caller } };
}

export function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = (authInfo?.extra as { caller?: McpCaller } | undefined)?.caller;
  // The route authenticates every POST before the SDK sees it: no caller here is a wiring mistake.
  if (!caller) throw new Error('MCP request reached a tool without an authenticated caller');
  return caller;
}
