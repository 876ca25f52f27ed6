// The connection's tokens against PostgreSQL and the HubSpot stand-in:
// refreshed before expiry, one refresh at a time, a token HubSpot refused
// refreshed once across processes (and no more read by any of them), whatever
// refresh token comes back kept, and a dead grant pausing the account's
// integrations and telling the owner once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrmAuthRevoked } from '../../integrations/crm/errors.ts';
import { HubSpotAuthRevoked } from '../../integrations/hubspot/errors.ts';
import { decryptToken } from '../../lib/token-cipher.ts';
import { createCrmTokens } from '../../services/crm/connections.ts';
import { saveCrmSettings } from '../../services/crm/settings.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let crm: CrmFixture;
let accountId: number;
let productId: number;
const paused: number[][] = [];
const em = () => stack.orm.em.fork();

const tokenCalls = async () => {
  const { calls } = (await (await fetch(`${crm.hubspot.url}/__admin/calls`)).json()) as { calls: Array<{ path: string; kind: string }> };
  return calls.filter((call) => call.kind === 'oauth').length;
};
const stored = async () => {
  const [row] = await em().execute('select access_token, refresh_token, access_expires_at, status from crm_connection where account_id = ?', [accountId]);
  return {
    access: row.access_token ? decryptToken(crm.config.tokenKey, row.access_token, 'access') : null,
    refresh: row.refresh_token ? decryptToken(crm.config.tokenKey, row.refresh_token, 'refresh') : null,
    expiresAt: row.access_expires_at ? new Date(row.access_expires_at) : null,
    status: row.status as string,
  };
};
/** A fresh token source, as another worker process would have (no cache of this one's). */
const freshTokens = () => createCrmTokens({ em, tokenKey: crm.config.tokenKey, kits: crm.kits, clock: () => new Date(), publicUrl: 'http://127.0.0.1:9', onPaused: async (ids) => void paused.push(ids) });

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  crm = await startCrmFixture({ world: stack.providerWorld.world, em });
  accountId = await stack.createAccount('growth');
  await stack.createKey(accountId);
  [{ id: productId }] = await em().execute('select id from product_context where account_id = ?', [accountId]);
  await crm.connect(em(), accountId);
  await saveCrmSettings(em(), accountId, productId, {
    cadence: 'daily', hourUtc: 8, scoreProperty: 'hubspotscore', minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: 5,
    chatWebhookUrl: null, digestEnabled: true, digestEmail: null, active: true,
  }, new Date());
});
afterAll(async () => {
  await crm?.stop();
  await stack?.stop();
});

describe('CRM tokens', () => {
  it('uses a stored token while it has more than 5 minutes left, and refreshes it before then', async () => {
    const before = await stored();
    const tokens = freshTokens();
    const callsBefore = await tokenCalls();
    expect((await tokens.accessToken(accountId)).token).toBe(before.access);
    expect(await tokenCalls()).toBe(callsBefore);

    await em().execute(`update crm_connection set access_expires_at = now() + interval '4 minutes' where account_id = ?`, [accountId]);
    const refreshed = await freshTokens().accessToken(accountId);
    expect(refreshed.token).not.toBe(before.access);
    expect(refreshed.portalId).toBe('4000001');
    const after = await stored();
    expect(after.access).toBe(refreshed.token);
    expect(after.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(await tokenCalls()).toBe(callsBefore + 1);
  });

  it('refreshes once however many calls need a token at the same time, in this process and across processes', async () => {
    await em().execute(`update crm_connection set access_expires_at = now() - interval '1 minute' where account_id = ?`, [accountId]);
    const callsBefore = await tokenCalls();
    const [one, two] = [freshTokens(), freshTokens()];
    const tokens = await Promise.all([...Array.from({ length: 5 }, () => one.accessToken(accountId)), ...Array.from({ length: 5 }, () => two.accessToken(accountId))]);
    expect(new Set(tokens.map((each) => each.token)).size).toBe(1);
    expect(await tokenCalls()).toBe(callsBefore + 1);
  });

  it('a token HubSpot refused (401) is refreshed once across processes, and none of them reads it again', async () => {
    const refused = (await stored()).access!;
    const callsBefore = await tokenCalls();
    const [one, two] = [freshTokens(), freshTokens()];
    // Both processes met the 401 with it, side by side, each with calls of its own.
    const tokens = await Promise.all([one, two].flatMap((tokens) => [tokens.accessToken(accountId, { refused }), tokens.accessToken(accountId, { refused })]));
    const renewed = (await stored()).access!;
    expect(renewed).not.toBe(refused);
    expect(tokens.map((each) => each.token)).toEqual([renewed, renewed, renewed, renewed]);
    expect((await freshTokens().accessToken(accountId)).token).toBe(renewed);
    expect(await tokenCalls()).toBe(callsBefore + 1);
    // A 401 arriving late with the old token reads the stored one again: no second refresh.
    expect((await freshTokens().accessToken(accountId, { refused })).token).toBe(renewed);
    expect(await tokenCalls()).toBe(callsBefore + 1);
  });

  it('after a 401, every process waits for the refresh instead of reading the refused token', async () => {
    const refused = (await stored()).access!;
    let release!: () => void;
    const held = new Promise<void>((resolve) => void (release = resolve));
    // The refresh of the process that met the 401 is slow: what do the others read meanwhile?
    const slowOAuth = { ...crm.oauth, refresh: async (token: string, apiBase: string | null) => (await held, crm.oauth.refresh(token, apiBase)) };
    const discoverer = createCrmTokens({ em, tokenKey: crm.config.tokenKey, kits: { hubspot: { ...crm.kits.hubspot!, oauth: slowOAuth } }, clock: () => new Date(), publicUrl: 'http://127.0.0.1:9' });
    const refreshing = discoverer.accessToken(accountId, { refused });
    await new Promise((resolve) => setTimeout(resolve, 200));
    let otherGot: string | null = null;
    const other = freshTokens().accessToken(accountId).then((each) => void (otherGot = each.token));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(otherGot).toBeNull();
    release();
    const [renewed] = await Promise.all([refreshing, other]);
    expect(renewed.token).not.toBe(refused);
    expect(otherGot).toBe(renewed.token);
  });

  it('keeps whatever refresh token HubSpot hands back', async () => {
    crm.hubspot.setFaults({ rotateRefreshTokens: true });
    const before = await stored();
    await freshTokens().accessToken(accountId, { refused: before.access! });
    const after = await stored();
    expect(after.refresh).not.toBe(before.refresh);
    // The old one is dead at HubSpot now; the kept one works.
    await freshTokens().accessToken(accountId, { refused: after.access! });
    expect((await stored()).access).not.toBe(after.access);
    crm.hubspot.setFaults({ rotateRefreshTokens: false });
  });

  it('a revoked grant pauses the account integrations and e-mails the owner once', async () => {
    await fetch(`${crm.hubspot.url}/__admin/uninstall`, { method: 'POST' });
    const refused = (await stored()).access!;
    // HubSpot's refusal goes up as it came; the next caller finds no connection left (the CRM-neutral error every caller reads).
    await expect(freshTokens().accessToken(accountId, { refused })).rejects.toBeInstanceOf(HubSpotAuthRevoked);
    const again = await freshTokens().accessToken(accountId, { refused }).catch((caught: unknown) => caught);
    expect(again).toBeInstanceOf(CrmAuthRevoked);
    expect((again as Error).message).toBe(`account ${accountId} has no CRM connection`);
    expect((await stored()).status).toBe('revoked');
    const [integration] = await em().execute('select active, paused_reason from crm_integration where product_id = ?', [productId]);
    expect(integration).toEqual({ active: false, paused_reason: 'token_revoked' });
    expect(paused).toContainEqual([productId]);
    const mails = await em().execute(`select subject from email_outbox where dedupe_key like ?`, [`crm-token-revoked:${accountId}:%`]);
    expect(mails).toEqual([{ subject: 'Your HubSpot connection stopped working' }]);
  });
});
