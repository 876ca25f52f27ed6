import type { AuthInfo } from '@modelcontextprotocol/server';
import { AGENT_SCOPES } from '../../domain/agents/scopes.ts';

/**
 * Who calls a tool: the account, and how it signed in. With an API key, the
 * key's product context is the default product; an OAuth-connected agent has
 * no key (`keyId` null) and names a product unless the account has one. It
 * travels from the route's authentication to the tools in the SDK's AuthInfo
 * (`extra`); the presented token never does.
 */
export interface McpCaller {
  accountId: number;
  /** The API key that authenticated, or null for an OAuth-connected agent. */
  keyId: number | null;
  /** The key's product context (the default product), or null. */
  productId: number | null;
  /** Granted scopes: an API key may do anything its account may; an agent what its owner allowed. */
  scopes: string[];
  /** The OAuth client of an agent, or null for an API key. */
  clientId: string | null;
}

export const ALL_SCOPES: string[] = [...AGENT_SCOPES];

export function authInfoOf(caller: McpCaller): AuthInfo {
  const clientId = caller.clientId ?? `api-key:${caller.keyId}`;
  return { token: `caller:${clientId}`, clientId, scopes: caller.scopes, extra: { caller } };
}

export function callerOf(authInfo: AuthInfo | undefined): McpCaller {
  const caller = (authInfo?.extra as { caller?: McpCaller } | undefined)?.caller;
  // The route authenticates every POST before the SDK sees it: no caller here is a wiring mistake.
  if (!caller) throw new Error('MCP request reached a tool without an authenticated caller');
  return caller;
}
