import type { EntityManager } from '@mikro-orm/postgresql';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { findAccountOfUser } from '../../services/accounts/owners.ts';
import { isAgentGrantLive } from '../../services/accounts/agents.ts';
import { AUTH_BASE_PATH, type DashboardAuth } from '../dashboard/auth.ts';
import { mcpResourceOf } from '../dashboard/agent-authorization.ts';

/** An access token the dashboard's authorization server issued to an agent, checked for this resource. */
export interface AgentToken {
  accountId: number;
  userId: string;
  clientId: string;
  scopes: string[];
}

/** Hosted agents' OAuth, as /mcp and the well-known documents need it. */
export interface AgentAuthorization {
  /** The token's agent and account, or null when it is not a live token for this server. */
  verify(em: EntityManager, token: string, now: Date): Promise<AgentToken | null>;
  /** The authorization server's issuer: the protected resource metadata names it. */
  issuer: string;
  /** Its RFC 8414 metadata document. */
  serverMetadata(): Promise<Record<string, unknown>>;
}

/** The signing keys rarely change; a token signed by a key not yet seen reloads them at once. */
const KEYS_MAX_AGE_MS = 5 * 60 * 1000;

/**
 * Checks an agent's access token as RFC 9068 and the MCP authorization spec
 * ask: the signature (the JWT plugin's keys, read in process), the issuer, the
 * audience (this server's `/mcp` and nothing else: a token for another
 * resource is refused), expiry. Then the grant must still be live: revoking
 * an agent in the dashboard deletes it, so its next call is refused although
 * the token has not expired. The token is never passed on to anything.
 */
export function createAgentAuthorization(auth: DashboardAuth, publicUrl: string): AgentAuthorization {
  const issuer = `${publicUrl}${AUTH_BASE_PATH}`;
  const audience = mcpResourceOf(publicUrl);
  let keys: { set: ReturnType<typeof createLocalJWKSet>; loadedAt: number } | null = null;
  const loadKeys = async () => {
    const jwks = (await auth.api.getJwks()) as JSONWebKeySet;
    keys = { set: createLocalJWKSet(jwks), loadedAt: Date.now() };
    return keys.set;
  };

  const verifySignature = async (token: string) => {
    const options = { issuer, audience, algorithms: ['EdDSA'] };
    const current = keys && Date.now() - keys.loadedAt < KEYS_MAX_AGE_MS ? keys.set : await loadKeys();
    try {
      return (await jwtVerify(token, current, options)).payload;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw error;
      return (await jwtVerify(token, await loadKeys(), options)).payload;
    }
  };

  return {
    issuer,
    serverMetadata: async () => (await auth.api.getOAuthServerConfig()) as unknown as Record<string, unknown>,
    async verify(em, token, now) {
      let payload;
      try {
        payload = await verifySignature(token);
      } catch {
        return null;
      }
      const userId = typeof payload.sub === 'string' ? payload.sub : null;
      const clientId = typeof payload.azp === 'string' ? payload.azp : null;
      if (!userId || !clientId) return null;
      if (!(await isAgentGrantLive(em, userId, clientId))) return null;
      const account = await findAccountOfUser(em, userId, now);
      if (!account || account.deletionRequestedAt) return null;
      const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [];
      return { accountId: account.id, userId, clientId, scopes };
    },
  };
}
