import type { EntityManager } from '@mikro-orm/postgresql';

/** An AI agent the owner allowed (an OAuth client with a consent of this owner): what the AI agents page lists. */
export interface ConnectedAgent {
  clientId: string;
  name: string;
  /** Where the agent says it lives (its client URI, or the metadata document's URL), if it says. */
  uri: string | null;
  scopes: string[];
  connectedAt: string;
  /** When it last got a token (a sign-in or a refresh), if ever. */
  lastTokenAt: string | null;
}

/** True while the owner's grant to this agent stands: revoking deletes it, and the agent's tokens stop working at once. */
export async function isAgentGrantLive(em: EntityManager, userId: string, clientId: string): Promise<boolean> {
  const rows = await em.getConnection().execute(
    `select 1 from auth_oauth_consent c join auth_oauth_client k on k."clientId" = c."clientId"
     where c."userId" = ? and c."clientId" = ? and coalesce(k.disabled, false) = false limit 1`,
    [userId, clientId],
  );
  return rows.length > 0;
}

export async function listConnectedAgents(em: EntityManager, userId: string): Promise<ConnectedAgent[]> {
  const rows: Array<{ client_id: string; name: string | null; uri: string | null; scopes: string[]; connected_at: Date; last_token_at: Date | null }> = await em.getConnection().execute(
    `select c."clientId" as client_id, k.name, k.uri, c.scopes, c."createdAt" as connected_at,
            (select max(t."createdAt") from auth_oauth_refresh_token t where t."clientId" = c."clientId" and t."userId" = c."userId") as last_token_at
     from auth_oauth_consent c join auth_oauth_client k on k."clientId" = c."clientId"
     where c."userId" = ?
     order by c."createdAt" desc, c.id`,
    [userId],
  );
  return rows.map((row) => ({
    clientId: row.client_id,
    name: row.name?.trim() || row.client_id,
    uri: row.uri ?? (row.client_id.startsWith('https://') ? row.client_id : null),
    scopes: Array.isArray(row.scopes) ? row.scopes : [],
    connectedAt: new Date(row.connected_at).toISOString(),
    lastTokenAt: row.last_token_at ? new Date(row.last_token_at).toISOString() : null,
  }));
}

/**
 * Ends the owner's grant to an agent: its consent and every token it holds for
 * this owner. Its access tokens are refused from the next call on (they are
 * checked against the grant), and it cannot refresh. Returns false when the
 * owner had no grant for that agent.
 */
export async function revokeAgent(em: EntityManager, userId: string, clientId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const connection = tx.getConnection();
    const consents = await connection.execute('delete from auth_oauth_consent where "userId" = ? and "clientId" = ? returning id', [userId, clientId]);
    await connection.execute('delete from auth_oauth_access_token where "userId" = ? and "clientId" = ?', [userId, clientId]);
    await connection.execute('delete from auth_oauth_refresh_token where "userId" = ? and "clientId" = ?', [userId, clientId]);
    return consents.length > 0;
  });
}
