import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * What deleting an account does at once outside our own tables. Each must be
 * idempotent: a deletion that failed half-way is requested again, and every
 * step runs again.
 */
export interface AccountDeletionDeps {
  now: Date;
  /** Ends every dashboard session of the account's owner (the dashboard's auth owns its tables). */
  endSessions(accountId: number): Promise<void>;
  /** Cancels the paid subscription at once; nothing to do on Free (the billing client owns Stripe). */
  cancelSubscription(accountId: number): Promise<void>;
  /**
   * Pauses every CRM integration of the account (and its Schedules) and
   * revokes its CRM token (docs/decisions.md#retention-and-account-deletion): services/crm/crm.ts
   * `onAccountDeleted`; absent where no CRM app is configured.
   */
  pauseCrm?(accountId: number): Promise<void>;
}

export interface AccountDeletionRequest {
  /** When the deletion was first requested (a repeated request keeps it). */
  deletionRequestedAt: Date;
  /** Keys this call revoked (0 when a previous request had revoked them). */
  keysRevoked: number;
}

export class AccountNotFound extends Error {
  constructor(accountId: number) {
    super(`no account ${accountId}`);
    this.name = 'AccountNotFound';
  }
}

/** Some outside step failed after the account was marked and its keys revoked: request the deletion again. */
export class AccountDeletionIncomplete extends Error {
  readonly failedSteps: string[];

  constructor(failed: Array<{ step: string; error: unknown }>) {
    super(`account deletion requested, but these steps failed: ${failed.map((each) => each.step).join(', ')}`, {
      cause: failed.length === 1 ? failed[0]!.error : new AggregateError(failed.map((each) => each.error)),
    });
    this.name = 'AccountDeletionIncomplete';
    this.failedSteps = failed.map((each) => each.step);
  }
}

/**
 * The owner confirmed the deletion (docs/operations.md#account-deletion). At once, in one
 * transaction: every key revoked (the API answers 401 `invalid_key` from the
 * next request on, as for any revoked key) and the account marked, so that
 * `isAccountDeleted` refuses sign-in. Then the subscription is cancelled, the
 * CRM paused and the sessions ended. The daily purge (services/retention/purge.ts)
 * deletes the rest within a day; a job still running ends normally first.
 */
export async function requestAccountDeletion(em: EntityManager, accountId: number, deps: AccountDeletionDeps): Promise<AccountDeletionRequest> {
  const marked = await em.transactional(async (tx) => {
    const [account]: Array<{ deletion_requested_at: Date }> = await tx.execute(
      'update account set deletion_requested_at = coalesce(deletion_requested_at, ?) where id = ? returning deletion_requested_at',
      [deps.now, accountId],
    );
    if (!account) throw new AccountNotFound(accountId);
    const revoked = await tx.execute('update api_key set revoked_at = ? where account_id = ? and revoked_at is null returning id', [deps.now, accountId]);
    return { deletionRequestedAt: new Date(account.deletion_requested_at), keysRevoked: revoked.length };
  });

  // Every step runs even when one before it failed: a refused cancellation must not keep sessions open.
  const steps: Array<[string, ((accountId: number) => Promise<void>) | undefined]> = [
    ['cancelSubscription', deps.cancelSubscription],
    ['pauseCrm', deps.pauseCrm],
    ['endSessions', deps.endSessions],
  ];
  const failed: Array<{ step: string; error: unknown }> = [];
  for (const [step, run] of steps) {
    if (!run) continue;
    try {
      await run(accountId);
    } catch (error) {
      failed.push({ step, error });
    }
  }
  if (failed.length > 0) throw new AccountDeletionIncomplete(failed);
  return marked;
}

/** True from the moment deletion is requested: the dashboard refuses sign-in and sessions of such an account. */
export async function isAccountDeleted(em: EntityManager, accountId: number): Promise<boolean> {
  const [row]: Array<{ is_deleted: boolean }> = await em.execute(
    'select deletion_requested_at is not null or deleted_at is not null as is_deleted from account where id = ?',
    [accountId],
  );
  // An account that does not exist cannot be signed in to either.
  return row?.is_deleted ?? true;
}
