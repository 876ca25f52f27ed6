// One CRM connection per account, whichever CRM (docs/decisions.md#crm-integration):
// the consent `state` (bound to the dashboard session, single-use, with the
// CRM it is for and its PKCE verifier), the grant kept encrypted, access
// tokens refreshed before they expire with one refresh at a time per
// connection, whatever refresh token comes back kept; a dead grant pauses the
// account's integrations and tells the owner once.
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CRM_PROVIDER_LABELS, type CrmConnectionRef, type CrmGrant, type CrmProvider } from '../../integrations/crm/adapter.ts';
import { CrmAuthRevoked } from '../../integrations/crm/errors.ts';
import type { CrmProviderKits } from '../../integrations/crm/providers.ts';
import { decryptToken, encryptToken } from '../../lib/token-cipher.ts';
import { crmConnectionLostEmail } from '../../integrations/mail/templates/crm.ts';
import { enqueueMail } from '../mail/outbox.ts';

const STATE_TTL_MS = 10 * 60_000;
/** Refresh this long before expiry (docs/crm.md#tokens: about 5 minutes early). */
export const REFRESH_EARLY_MS = 5 * 60_000;

export interface CrmConnectionView {
  provider: CrmProvider;
  portalId: string;
  /** Who approved the connection in the CRM. */
  connectedUser: string;
  connectedBy: string;
  connectedAt: Date;
  status: 'connected' | 'revoked' | 'disconnected';
}

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/**
 * A fresh `state` for the consent URL (only its hash is stored), and for a
 * CRM that takes PKCE the S256 challenge of a verifier kept with it.
 */
export async function createOAuthState(
  em: EntityManager,
  input: { accountId: number; productId: number; provider: CrmProvider; usesPkce: boolean; sessionUserId: string; now: Date },
): Promise<{ state: string; codeChallenge: string | null }> {
  const state = randomBytes(24).toString('base64url');
  const verifier = input.usesPkce ? randomBytes(48).toString('base64url') : null;
  // States nobody came back with are kept a day (for support), then dropped.
  await em.execute('delete from crm_oauth_state where expires_at < ?', [new Date(input.now.getTime() - 86_400_000)]);
  await em.execute(
    'insert into crm_oauth_state (state_hash, account_id, product_id, provider, code_verifier, session_user_id, created_at, expires_at) values (?, ?, ?, ?, ?, ?, ?, ?)',
    [hashState(state), input.accountId, input.productId, input.provider, verifier, input.sessionUserId, input.now, new Date(input.now.getTime() + STATE_TTL_MS)],
  );
  return { state, codeChallenge: verifier ? createHash('sha256').update(verifier).digest('base64url') : null };
}

export interface ClaimedOAuthState {
  accountId: number;
  productId: number;
  provider: CrmProvider;
  codeVerifier: string | null;
}

/** What a `state` was made for, once, and only for the session that made it; null otherwise. The verifier is forgotten as it is read. */
export async function consumeOAuthState(em: EntityManager, state: string, sessionUserId: string, now: Date): Promise<ClaimedOAuthState | null> {
  const rows: Array<{ account_id: number; product_id: number; provider: CrmProvider; code_verifier: string | null }> = await em.execute(
    `update crm_oauth_state s set used_at = ?, code_verifier = null from crm_oauth_state old
     where s.state_hash = old.state_hash and s.state_hash = ? and s.session_user_id = ? and s.used_at is null and s.expires_at > ?
     returning s.account_id, s.product_id, s.provider, old.code_verifier`,
    [now, hashState(state), sessionUserId, now],
  );
  const [row] = rows;
  return row ? { accountId: row.account_id, productId: row.product_id, provider: row.provider, codeVerifier: row.code_verifier } : null;
}

export async function saveConnection(em: EntityManager, key: Buffer, input: { accountId: number; provider: CrmProvider; grant: CrmGrant; connectedBy: string; now: Date }): Promise<void> {
  const { grant } = input;
  await em.execute(
    `insert into crm_connection (account_id, provider, portal_id, api_base, hub_user, connected_by, scopes, access_token, refresh_token, access_expires_at, status, connected_at, refreshed_at, ended_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'connected', ?, null, null)
     on conflict (account_id) do update set provider = excluded.provider, portal_id = excluded.portal_id, api_base = excluded.api_base, hub_user = excluded.hub_user,
       connected_by = excluded.connected_by, scopes = excluded.scopes,
       access_token = excluded.access_token, refresh_token = excluded.refresh_token, access_expires_at = excluded.access_expires_at, status = 'connected',
       connected_at = excluded.connected_at, refreshed_at = null, ended_at = null`,
    [
      input.accountId, input.provider, grant.portalId, grant.apiBase, grant.connectedUser, input.connectedBy, JSON.stringify(grant.scopes),
      encryptToken(key, grant.accessToken, 'access'), encryptToken(key, grant.refreshToken, 'refresh'), grant.expiresAt, input.now,
    ],
  );
}

export async function getConnection(em: EntityManager, accountId: number): Promise<CrmConnectionView | null> {
  const [row]: Array<{ provider: CrmProvider; portal_id: string; hub_user: string; connected_by: string; connected_at: Date; status: CrmConnectionView['status'] }> = await em.execute(
    'select provider, portal_id, hub_user, connected_by, connected_at, status from crm_connection where account_id = ?',
    [accountId],
  );
  return row
    ? { provider: row.provider, portalId: row.portal_id, connectedUser: row.hub_user, connectedBy: row.connected_by, connectedAt: new Date(row.connected_at), status: row.status }
    : null;
}

/** The account's live connection as an adapter needs it; null when none is connected. */
export async function connectionRef(em: EntityManager, accountId: number): Promise<CrmConnectionRef | null> {
  const [row]: Array<{ provider: CrmProvider; portal_id: string; api_base: string | null }> = await em.execute(
    `select provider, portal_id, api_base from crm_connection where account_id = ? and status = 'connected'`,
    [accountId],
  );
  return row ? { accountId, provider: row.provider, portalId: row.portal_id, apiBase: row.api_base } : null;
}

/** Pauses every integration of the account with a reason; the product ids whose Schedules must follow. */
export async function pauseAccountIntegrations(em: EntityManager, accountId: number, reason: string, now: Date): Promise<number[]> {
  const rows: Array<{ product_id: number }> = await em.execute(
    'update crm_integration set active = false, paused_reason = ?, updated_at = ? where account_id = ? and (active or paused_reason is distinct from ?) returning product_id',
    [reason, now, accountId, reason],
  );
  const all: Array<{ product_id: number }> = await em.execute('select product_id from crm_integration where account_id = ?', [accountId]);
  return rows.length > 0 ? all.map((row) => row.product_id) : [];
}

export interface CrmTokens {
  /**
   * A live access token for the account's connection, as stored now.
   * `refused`: the CRM answered 401 to this token; it is refreshed only if it
   * is still the stored one. Throws CrmAuthRevoked for a dead grant.
   */
  accessToken(accountId: number, options?: { refused?: string }): Promise<{ token: string; portalId: string }>;
  /** Revokes at the CRM, forgets the tokens, pauses every integration. The paused product ids. */
  disconnect(accountId: number, reason?: 'disconnected' | 'account_deleted'): Promise<number[]>;
}

/**
 * Token access for workers and the API, one token per connection whatever
 * the number of processes (docs/crm.md#tokens). Every call reads the stored
 * token, so no process keeps using one another process has found dead. A
 * refresh happens once per expiry: under the connection row's lock, after
 * checking again that the stored token still needs it (one promise per
 * account in this process, the lock across processes). A 401 first marks
 * the refused token expired, if it is still the stored one, so that every
 * process waits for the refresh instead of calling with it.
 */
export function createCrmTokens(deps: {
  em: () => EntityManager;
  tokenKey: Buffer;
  kits: CrmProviderKits;
  clock: () => Date;
  publicUrl: string;
  /** Called after a dead grant paused integrations, to bring their Schedules along. */
  onPaused?(productIds: number[]): Promise<void>;
}): CrmTokens {
  const inFlight = new Map<number, Promise<{ token: string; portalId: string }>>();
  const key = deps.tokenKey;
  const kitOf = (provider: CrmProvider) => {
    const kit = deps.kits[provider];
    // A connection to a CRM whose app this server no longer has: nothing can refresh or revoke it.
    if (!kit) throw new CrmAuthRevoked(`${CRM_PROVIDER_LABELS[provider]} is not configured on this server`);
    return kit;
  };
  const isFresh = (expiresAt: Date | null) => expiresAt !== null && new Date(expiresAt).getTime() - REFRESH_EARLY_MS > deps.clock().getTime();

  /** The stored token if it is live; null when it needs a refresh (or the connection is gone: the refresh says so). */
  async function storedToken(accountId: number): Promise<{ token: string; portalId: string } | null> {
    const [row]: Array<{ portal_id: string; access_token: string | null; access_expires_at: Date | null; status: string }> = await deps.em().execute(
      'select portal_id, access_token, access_expires_at, status from crm_connection where account_id = ?',
      [accountId],
    );
    if (!row || row.status !== 'connected' || !row.access_token || !isFresh(row.access_expires_at)) return null;
    return { token: decryptToken(key, row.access_token, 'access'), portalId: row.portal_id };
  }

  /** The CRM refused `token`: if it is still the stored one, it counts as expired from now on (by the database's clock). */
  async function markRefused(accountId: number, token: string): Promise<void> {
    const em = deps.em();
    const [row]: Array<{ access_token: string | null }> = await em.execute('select access_token from crm_connection where account_id = ?', [accountId]);
    if (!row?.access_token || decryptToken(key, row.access_token, 'access') !== token) return;
    await em.execute('update crm_connection set access_expires_at = least(access_expires_at, now()) where account_id = ? and access_token = ?', [accountId, row.access_token]);
  }

  async function refreshLocked(accountId: number): Promise<{ token: string; portalId: string }> {
    const em = deps.em();
    let lost: { provider: CrmProvider; portalId: string; ownerEmail: string; connectedAt: Date } | null = null;
    const result = await em.transactional(async (tx) => {
      const [row]: Array<{
        provider: CrmProvider; portal_id: string; api_base: string | null; access_token: string | null; refresh_token: string | null; access_expires_at: Date | null;
        status: string; connected_at: Date; owner_email: string;
      }> =
        await tx.execute(
          `select c.provider, c.portal_id, c.api_base, c.access_token, c.refresh_token, c.access_expires_at, c.status, c.connected_at, a.owner_email
           from crm_connection c join account a on a.id = c.account_id where c.account_id = ? for update of c`,
          [accountId],
        );
      if (!row || row.status !== 'connected' || !row.refresh_token) throw new CrmAuthRevoked(`account ${accountId} has no CRM connection`);
      const portalId = row.portal_id;
      const now = deps.clock();
      // Another process refreshed while this one waited for the lock.
      if (row.access_token && isFresh(row.access_expires_at)) return { token: decryptToken(key, row.access_token, 'access'), portalId };
      try {
        const tokens = await kitOf(row.provider).oauth.refresh(decryptToken(key, row.refresh_token, 'refresh'), row.api_base);
        await tx.execute('update crm_connection set access_token = ?, refresh_token = ?, access_expires_at = ?, api_base = coalesce(?, api_base), refreshed_at = ? where account_id = ?', [
          encryptToken(key, tokens.accessToken, 'access'), encryptToken(key, tokens.refreshToken, 'refresh'), tokens.expiresAt, tokens.apiBase, now, accountId,
        ]);
        return { token: tokens.accessToken, portalId };
      } catch (error) {
        if (!(error instanceof CrmAuthRevoked)) throw error;
        await tx.execute(`update crm_connection set status = 'revoked', access_token = null, refresh_token = null, ended_at = ? where account_id = ?`, [now, accountId]);
        lost = { provider: row.provider, portalId, ownerEmail: row.owner_email, connectedAt: new Date(row.connected_at) };
        return error;
      }
    });
    if (result instanceof CrmAuthRevoked) {
      const paused = await afterLoss(accountId, lost!);
      await deps.onPaused?.(paused);
      throw result;
    }
    return result;
  }

  /** Pauses the integrations and tells the owner, once per connection (the dedupe key holds its connection time). */
  async function afterLoss(accountId: number, lost: { provider: CrmProvider; portalId: string; ownerEmail: string; connectedAt: Date }): Promise<number[]> {
    return deps.em().transactional(async (tx) => {
      const paused = await pauseAccountIntegrations(tx, accountId, 'token_revoked', deps.clock());
      await enqueueMail(tx, {
        accountId,
        dedupeKey: `crm-token-revoked:${accountId}:${lost.connectedAt.toISOString()}`,
        message: crmConnectionLostEmail({ to: lost.ownerEmail, crm: CRM_PROVIDER_LABELS[lost.provider], portalId: lost.portalId, publicUrl: deps.publicUrl }),
      });
      return paused;
    });
  }

  return {
    async accessToken(accountId, options = {}) {
      if (options.refused !== undefined) await markRefused(accountId, options.refused);
      const stored = await storedToken(accountId);
      if (stored) return stored;
      const running = inFlight.get(accountId);
      if (running) return running;
      const started = refreshLocked(accountId).finally(() => inFlight.delete(accountId));
      inFlight.set(accountId, started);
      return started;
    },
    async disconnect(accountId, reason = 'disconnected') {
      const em = deps.em();
      const [row]: Array<{ provider: CrmProvider; api_base: string | null; refresh_token: string | null }> = await em.execute(
        'select provider, api_base, refresh_token from crm_connection where account_id = ?',
        [accountId],
      );
      // Revoked at the CRM first: if it cannot be reached, nothing changes here and the owner can try again.
      if (row?.refresh_token) await kitOf(row.provider).oauth.revoke(decryptToken(key, row.refresh_token, 'refresh'), row.api_base);
      const now = deps.clock();
      const paused = await em.transactional(async (tx) => {
        await tx.execute(`update crm_connection set status = 'disconnected', access_token = null, refresh_token = null, ended_at = ? where account_id = ?`, [now, accountId]);
        return pauseAccountIntegrations(tx, accountId, reason, now);
      });
      await deps.onPaused?.(paused);
      return paused;
    },
  };
}
