// One HubSpot connection per account (docs/decisions.md#crm-integration): the
// consent `state` (bound to the dashboard session, single-use), the grant
// kept encrypted, access tokens refreshed before they expire with one
// refresh at a time per connection, whatever refresh token comes back kept;
// a dead grant pauses the account's integrations and tells the owner once.
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { HubSpotConfig } from '../integrations/hubspot/config.ts';
import { HubSpotAuthRevoked } from '../integrations/hubspot/errors.ts';
import type { HubSpotGrant, HubSpotOAuth } from '../integrations/hubspot/oauth.ts';
import { decryptToken, encryptToken } from '../integrations/hubspot/token-cipher.ts';
import { crmConnectionLostEmail } from '../integrations/mail/templates/crm.ts';
import { enqueueMail } from './mail-outbox.ts';

const STATE_TTL_MS = 10 * 60_000;
/** Refresh this long before expiry (docs/crm.md#tokens: about 5 minutes early). */
export const REFRESH_EARLY_MS = 5 * 60_000;

export interface CrmConnectionView {
  provider: 'hubspot';
  portalId: number;
  hubUser: string;
  connectedBy: string;
  connectedAt: Date;
  status: 'connected' | 'revoked' | 'disconnected';
}

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** A fresh `state` for the consent URL; only its hash is stored. */
export async function createOAuthState(em: EntityManager, input: { accountId: number; productId: number; sessionUserId: string; now: Date }): Promise<string> {
  const state = randomBytes(24).toString('base64url');
  // States nobody came back with are kept a day (for support), then dropped.
  await em.execute('delete from crm_oauth_state where expires_at < ?', [new Date(input.now.getTime() - 86_400_000)]);
  await em.execute(
    'insert into crm_oauth_state (state_hash, account_id, product_id, session_user_id, created_at, expires_at) values (?, ?, ?, ?, ?, ?)',
    [hashState(state), input.accountId, input.productId, input.sessionUserId, input.now, new Date(input.now.getTime() + STATE_TTL_MS)],
  );
  return state;
}

/** The account and product a `state` was made for, once, and only for the session that made it; null otherwise. */
export async function consumeOAuthState(em: EntityManager, state: string, sessionUserId: string, now: Date): Promise<{ accountId: number; productId: number } | null> {
  const rows: Array<{ account_id: number; product_id: number }> = await em.execute(
    `update crm_oauth_state set used_at = ? where state_hash = ? and session_user_id = ? and used_at is null and expires_at > ? returning account_id, product_id`,
    [now, hashState(state), sessionUserId, now],
  );
  return rows[0] ? { accountId: rows[0].account_id, productId: rows[0].product_id } : null;
}

export async function saveConnection(em: EntityManager, key: Buffer, input: { accountId: number; grant: HubSpotGrant; connectedBy: string; now: Date }): Promise<void> {
  const { grant } = input;
  await em.execute(
    `insert into crm_connection (account_id, portal_id, hub_user, connected_by, scopes, access_token, refresh_token, access_expires_at, status, connected_at, refreshed_at, ended_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'connected', ?, null, null)
     on conflict (account_id) do update set portal_id = excluded.portal_id, hub_user = excluded.hub_user, connected_by = excluded.connected_by, scopes = excluded.scopes,
       access_token = excluded.access_token, refresh_token = excluded.refresh_token, access_expires_at = excluded.access_expires_at, status = 'connected',
       connected_at = excluded.connected_at, refreshed_at = null, ended_at = null`,
    [
      input.accountId, grant.portalId, grant.hubUser, input.connectedBy, JSON.stringify(grant.scopes),
      encryptToken(key, grant.accessToken, 'access'), encryptToken(key, grant.refreshToken, 'refresh'), grant.expiresAt, input.now,
    ],
  );
}

export async function getConnection(em: EntityManager, accountId: number): Promise<CrmConnectionView | null> {
  const [row]: Array<{ portal_id: string; hub_user: string; connected_by: string; connected_at: Date; status: CrmConnectionView['status'] }> = await em.execute(
    'select portal_id, hub_user, connected_by, connected_at, status from crm_connection where account_id = ?',
    [accountId],
  );
  return row ? { provider: 'hubspot', portalId: Number(row.portal_id), hubUser: row.hub_user, connectedBy: row.connected_by, connectedAt: new Date(row.connected_at), status: row.status } : null;
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
   * `refused`: HubSpot answered 401 to this token; it is refreshed only if it
   * is still the stored one. Throws HubSpotAuthRevoked for a dead grant.
   */
  accessToken(accountId: number, options?: { refused?: string }): Promise<{ token: string; portalId: number }>;
  /** Revokes at HubSpot, forgets the tokens, pauses every integration. The paused product ids. */
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
  config: HubSpotConfig;
  oauth: HubSpotOAuth;
  clock: () => Date;
  publicUrl: string;
  /** Called after a dead grant paused integrations, to bring their Schedules along. */
  onPaused?(productIds: number[]): Promise<void>;
}): CrmTokens {
  const inFlight = new Map<number, Promise<{ token: string; portalId: number }>>();
  const key = deps.config.tokenKey;
  const isFresh = (expiresAt: Date | null) => expiresAt !== null && new Date(expiresAt).getTime() - REFRESH_EARLY_MS > deps.clock().getTime();

  /** The stored token if it is live; null when it needs a refresh (or the connection is gone: the refresh says so). */
  async function storedToken(accountId: number): Promise<{ token: string; portalId: number } | null> {
    const [row]: Array<{ portal_id: string; access_token: string | null; access_expires_at: Date | null; status: string }> = await deps.em().execute(
      'select portal_id, access_token, access_expires_at, status from crm_connection where account_id = ?',
      [accountId],
    );
    if (!row || row.status !== 'connected' || !row.access_token || !isFresh(row.access_expires_at)) return null;
    return { token: decryptToken(key, row.access_token, 'access'), portalId: Number(row.portal_id) };
  }

  /** HubSpot refused `token`: if it is still the stored one, it counts as expired from now on (by the database's clock). */
  async function markRefused(accountId: number, token: string): Promise<void> {
    const em = deps.em();
    const [row]: Array<{ access_token: string | null }> = await em.execute('select access_token from crm_connection where account_id = ?', [accountId]);
    if (!row?.access_token || decryptToken(key, row.access_token, 'access') !== token) return;
    await em.execute('update crm_connection set access_expires_at = least(access_expires_at, now()) where account_id = ? and access_token = ?', [accountId, row.access_token]);
  }

  async function refreshLocked(accountId: number): Promise<{ token: string; portalId: number }> {
    const em = deps.em();
    let lost: { portalId: number; ownerEmail: string; connectedAt: Date } | null = null;
    const result = await em.transactional(async (tx) => {
      const [row]: Array<{ portal_id: string; access_token: string | null; refresh_token: string | null; access_expires_at: Date | null; status: string; connected_at: Date; owner_email: string }> =
        await tx.execute(
          `select c.portal_id, c.access_token, c.refresh_token, c.access_expires_at, c.status, c.connected_at, a.owner_email
           from crm_connection c join account a on a.id = c.account_id where c.account_id = ? for update of c`,
          [accountId],
        );
      if (!row || row.status !== 'connected' || !row.refresh_token) throw new HubSpotAuthRevoked(`account ${accountId} has no HubSpot connection`);
      const portalId = Number(row.portal_id);
      const now = deps.clock();
      // Another process refreshed while this one waited for the lock.
      if (row.access_token && isFresh(row.access_expires_at)) return { token: decryptToken(key, row.access_token, 'access'), portalId };
      try {
        const tokens = await deps.oauth.refresh(decryptToken(key, row.refresh_token, 'refresh'));
        await tx.execute('update crm_connection set access_token = ?, refresh_token = ?, access_expires_at = ?, refreshed_at = ? where account_id = ?', [
          encryptToken(key, tokens.accessToken, 'access'), encryptToken(key, tokens.refreshToken, 'refresh'), tokens.expiresAt, now, accountId,
        ]);
        return { token: tokens.accessToken, portalId };
      } catch (error) {
        if (!(error instanceof HubSpotAuthRevoked)) throw error;
        await tx.execute(`update crm_connection set status = 'revoked', access_token = null, refresh_token = null, ended_at = ? where account_id = ?`, [now, accountId]);
        lost = { portalId, ownerEmail: row.owner_email, connectedAt: new Date(row.connected_at) };
        return error;
      }
    });
    if (result instanceof HubSpotAuthRevoked) {
      const paused = await afterLoss(accountId, lost!);
      await deps.onPaused?.(paused);
      throw result;
    }
    return result;
  }

  /** Pauses the integrations and tells the owner, once per connection (the dedupe key holds its connection time). */
  async function afterLoss(accountId: number, lost: { portalId: number; ownerEmail: string; connectedAt: Date }): Promise<number[]> {
    return deps.em().transactional(async (tx) => {
      const paused = await pauseAccountIntegrations(tx, accountId, 'token_revoked', deps.clock());
      await enqueueMail(tx, {
        accountId,
        dedupeKey: `crm-token-revoked:${accountId}:${lost.connectedAt.toISOString()}`,
        message: crmConnectionLostEmail({ to: lost.ownerEmail, portalId: lost.portalId, publicUrl: deps.publicUrl }),
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
      const [row]: Array<{ refresh_token: string | null }> = await em.execute('select refresh_token from crm_connection where account_id = ?', [accountId]);
      // Revoked at HubSpot first: if HubSpot cannot be reached, nothing changes here and the owner can try again.
      if (row?.refresh_token) await deps.oauth.revoke(decryptToken(key, row.refresh_token, 'refresh'));
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
