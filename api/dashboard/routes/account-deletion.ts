import Router from '@koa/router';
import { fromNodeHeaders } from 'better-auth/node';
import { ZAccountDeletion } from '../../../domain/dashboard/schemas.ts';
import { AppError } from '../../../domain/errors.ts';
import { requestAccountDeletion } from '../../../services/accounts/deletion.ts';
import { cancelSubscriptionNow, type Billing } from '../../../services/billing/billing.ts';
import type { DashboardAuth } from '../auth.ts';
import { parseBody, type DashboardState } from '../guard.ts';

/**
 * Account deletion, confirmed with the password (docs/operations.md#account-deletion): keys
 * revoked, sign-in refused, subscription ended and sessions ended at once;
 * the daily purge deletes the rest and sends the confirmation.
 */
export function accountDeletionRouter(deps: {
  auth: DashboardAuth;
  billing: Billing;
  clock: () => Date;
  endSessions(userId: string): Promise<void>;
  /** Revokes the account's CRM token and pauses its integrations (services/crm/crm.ts); absent where no CRM is configured. */
  pauseCrm?(accountId: number): Promise<void>;
}): Router<DashboardState> {
  const router = new Router<DashboardState>();

  router.post('/account/delete', async (ctx) => {
    const { password } = await parseBody(ctx, ZAccountDeletion);
    const isConfirmed = await deps.auth.api
      .verifyPassword({ body: { password }, headers: fromNodeHeaders(ctx.req.headers) })
      .then(() => true, () => false);
    if (!isConfirmed) throw new AppError('invalid_request', 'That password is not right.', { fields: { password: 'That password is not right.' } });
    const { account, user, em } = ctx.state;
    const request = await requestAccountDeletion(em, account.id, {
      now: deps.clock(),
      endSessions: () => deps.endSessions(user.id),
      cancelSubscription: (accountId) => cancelSubscriptionNow(em.fork(), deps.billing, accountId),
      pauseCrm: deps.pauseCrm,
    });
    ctx.body = { deletionRequestedAt: request.deletionRequestedAt.toISOString(), keysRevoked: request.keysRevoked };
  });

  return router;
}
