import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noPurgeCounts } from '../../domain/retention/retention.ts';
import {
  AccountDeletionIncomplete,
  AccountNotFound,
  isAccountDeleted,
  requestAccountDeletion,
  type AccountDeletionDeps,
} from '../../services/accounts/deletion.ts';
import { tombstoneEmail } from '../../services/retention/purge.ts';
import { researchCompleted, rows } from '../helpers/research-runs.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { accountRowCounts, addFinishedList, addWebhookEndpoint, hasHistory, historiesLeft, runPurge } from './purge-helpers.ts';

/** The outside steps as the dashboard wires them (sessions, Stripe, CRM), recorded: their own modules test them. */
function recordingDeps(stack: TestStack, failing: string[] = []) {
  const calls: string[] = [];
  const step = (name: string) => async (accountId: number) => {
    calls.push(`${name}:${accountId}`);
    if (failing.includes(name)) throw new Error(`${name} refused`);
  };
  const deps: AccountDeletionDeps = {
    now: stack.clock.now(),
    endSessions: step('endSessions'),
    cancelSubscription: step('cancelSubscription'),
    pauseCrm: step('pauseCrm'),
  };
  return { deps, calls };
}

/** The dashboard's owner of an account, as better-auth stores it after sign-up and sign-in. */
async function signUpOwner(stack: TestStack, accountId: number): Promise<void> {
  const userId = `user-${accountId}`;
  await rows(
    stack,
    `insert into auth_user (id, name, email, "emailVerified") select ?, 'Owner', owner_email, true from account where id = ?`,
    [userId, accountId],
  );
  await rows(stack, `insert into auth_session (id, "expiresAt", token, "updatedAt", "userId") values (?, now() + interval '1 day', ?, now(), ?)`, [
    `session-${accountId}`,
    `token-${accountId}`,
    userId,
  ]);
  await rows(stack, 'update account set owner_user_id = ? where id = ?', [userId, accountId]);
}

async function ownerSignIn(stack: TestStack, accountId: number): Promise<{ users: number; sessions: number }> {
  const userId = `user-${accountId}`;
  const [counts] = await rows(
    stack,
    `select (select count(*)::int from auth_user where id = ?) as users, (select count(*)::int from auth_session where "userId" = ?) as sessions`,
    [userId, userId],
  );
  return counts as { users: number; sessions: number };
}

describe('account deletion', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  it('revokes the keys at once, lets a running job end, then the purge deletes everything but the tombstone and the ledger', async () => {
    const people = stack.providerWorld.world.samplePeople({ knownTo: 'both' }, 4).map((person) => person.email);
    const doomed = await stack.createCustomer('growth');
    const secondKey = await stack.createKey(doomed.accountId);
    const other = await stack.createCustomer('growth');
    const [doomedAccount] = await rows(stack, 'select owner_email from account where id = ?', [doomed.accountId]);
    await signUpOwner(stack, doomed.accountId);
    await signUpOwner(stack, other.accountId);
    const doomedJobs = [
      (await researchCompleted(stack, doomed.key, { email: people[0] })).researchId,
      (await researchCompleted(stack, secondKey.key, { email: people[1] })).researchId,
    ];
    const otherJob = (await researchCompleted(stack, other.key, { email: people[0] })).researchId;
    await addWebhookEndpoint(stack, doomed.accountId);
    await addFinishedList(stack, doomed.accountId, 'lst_doomed', stack.clock.now());
    const otherBefore = await accountRowCounts(stack, other.accountId);
    const doomedLedger = await rows(stack, 'select * from credit_ledger_entry where account_id = ? order by id', [doomed.accountId]);

    // A job still running when the owner confirms.
    stack.providerWorld.setLatency({ '*': { meanMs: 5_000 } });
    const running = await stack.api.research(doomed.key, { email: people[2] });
    expect(running.status).toBe(202);
    doomedJobs.push(running.body.research_id);

    const { deps, calls } = recordingDeps(stack);
    const request = await requestAccountDeletion(stack.orm.em.fork(), doomed.accountId, deps);
    expect(request).toEqual({ deletionRequestedAt: deps.now, keysRevoked: 2 });
    expect(calls).toEqual([`cancelSubscription:${doomed.accountId}`, `pauseCrm:${doomed.accountId}`, `endSessions:${doomed.accountId}`]);
    expect(await isAccountDeleted(stack.orm.em.fork(), doomed.accountId)).toBe(true);
    expect(await isAccountDeleted(stack.orm.em.fork(), other.accountId)).toBe(false);

    // Keys are dead from the next request on, on both endpoints; the other account's are not.
    for (const key of [doomed.key, secondKey.key]) {
      expect(await stack.api.research(key, { email: people[3] })).toMatchObject({ status: 401, body: { error: 'invalid_key' } });
      expect(await stack.api.status(key, doomedJobs[0]!)).toMatchObject({ status: 401, body: { error: 'invalid_key' } });
    }
    expect(await stack.api.status(other.key, otherJob)).toMatchObject({ status: 200, body: { status: 'completed' } });

    // The purge leaves an account with a running job alone.
    const early = await runPurge(stack, { now: stack.clock.now().toISOString() });
    expect(early.deleted).toEqual(noPurgeCounts());
    expect(await accountRowCounts(stack, doomed.accountId)).toMatchObject({ research_job: 3, api_key: 2 });

    // The job ends normally (its result is stored), and the next purge takes everything.
    expect(await stack.temporal.workflow.getHandle(running.body.research_id).result()).toBe('completed');
    stack.providerWorld.setLatency(null);
    const doomedBefore = await accountRowCounts(stack, doomed.accountId);
    expect(doomedBefore.prospect).toBeGreaterThanOrEqual(3);
    expect(doomedBefore.decision_maker).toBeGreaterThan(0);

    const report = await runPurge(stack, { now: stack.clock.now().toISOString(), batchSize: 2 });
    expect(report.deleted).toEqual({
      ...noPurgeCounts(),
      accountJobs: 3,
      accountHistories: 3,
      prospects: doomedBefore.prospect,
      companies: doomedBefore.company,
      decisionMakers: doomedBefore.decision_maker,
      productContexts: 2,
      apiKeys: 2,
      webhookDeliveries: 1,
      webhookEndpoints: 1,
      prospectLists: 1,
      accountsDeleted: 1,
    });
    expect(await accountRowCounts(stack, doomed.accountId)).toEqual({
      research_job: 0,
      prospect: 0,
      company: 0,
      decision_maker: 0,
      product_context: 0,
      api_key: 0,
      credit_ledger_entry: doomedLedger.length + 1,
      webhook_endpoint: 0,
      webhook_delivery: 0,
      prospect_list: 0,
    });
    expect(await historiesLeft(stack, doomedJobs)).toEqual([]);

    // The tombstone keeps the id, nothing personal; the ledger stays (plus the running job's consume).
    const [tombstone] = await rows(stack, 'select owner_email, deleted_at, deletion_requested_at from account where id = ?', [doomed.accountId]);
    expect(tombstone!.owner_email).toBe(tombstoneEmail(doomed.accountId));
    expect(new Date(tombstone!.deletion_requested_at)).toEqual(deps.now);
    expect(new Date(tombstone!.deleted_at)).toEqual(new Date(report.now));
    const ledger = await rows(stack, 'select * from credit_ledger_entry where account_id = ? order by id', [doomed.accountId]);
    expect(ledger.slice(0, doomedLedger.length)).toEqual(doomedLedger);
    expect(ledger.at(-1)).toMatchObject({ research_id: running.body.research_id, kind: 'consume' });

    // The confirmation e-mail goes to the former address, once, through the outbox.
    const mail = await rows(stack, 'select account_id, recipient, subject from email_outbox where dedupe_key = ?', [`account-deleted:${doomed.accountId}`]);
    expect(mail).toEqual([{ account_id: doomed.accountId, recipient: doomedAccount!.owner_email, subject: 'Your account has been deleted' }]);

    // The owner's sign-in is gone with its sessions; the other account is untouched.
    expect(await ownerSignIn(stack, doomed.accountId)).toEqual({ users: 0, sessions: 0 });
    expect(await ownerSignIn(stack, other.accountId)).toEqual({ users: 1, sessions: 1 });
    expect(await accountRowCounts(stack, other.accountId)).toEqual(otherBefore);
    expect(await hasHistory(stack, otherJob)).toBe(true);
    expect(await stack.api.status(other.key, otherJob)).toMatchObject({ status: 200, body: { status: 'completed' } });

    // Nothing left to do, and a repeated request changes nothing.
    expect((await runPurge(stack, { now: stack.clock.now().toISOString() })).deleted).toEqual(noPurgeCounts());
    expect(await requestAccountDeletion(stack.orm.em.fork(), doomed.accountId, recordingDeps(stack).deps)).toEqual({ deletionRequestedAt: deps.now, keysRevoked: 0 });
  }, 240_000);

  it('runs every outside step even when one fails, and says which failed', async () => {
    const { accountId, key } = await stack.createCustomer('starter');
    const { deps, calls } = recordingDeps(stack, ['cancelSubscription']);
    const failure = await requestAccountDeletion(stack.orm.em.fork(), accountId, deps).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AccountDeletionIncomplete);
    expect((failure as AccountDeletionIncomplete).failedSteps).toEqual(['cancelSubscription']);
    expect(calls).toEqual([`cancelSubscription:${accountId}`, `pauseCrm:${accountId}`, `endSessions:${accountId}`]);
    // The part in our hands is done regardless.
    expect(await isAccountDeleted(stack.orm.em.fork(), accountId)).toBe(true);
    expect(await stack.api.research(key, { email: 'someone@example.com' })).toMatchObject({ status: 401, body: { error: 'invalid_key' } });
  });

  it('refuses an unknown account', async () => {
    await expect(requestAccountDeletion(stack.orm.em.fork(), 987_654, recordingDeps(stack).deps)).rejects.toBeInstanceOf(AccountNotFound);
  });
});
