import Router from '@koa/router';
import { ZExtractRequest, ZProductContextInput } from '../../../domain/dashboard/schemas.ts';
import { AppError } from '../../../domain/errors.ts';
import { PLANS } from '../../../domain/billing/plans.ts';
import type { ProductContext } from '../../../domain/research/product-context.ts';
import { createApiKey, KeyLimitReached } from '../../../services/accounts/api-keys.ts';
import { listKeys, revokeAccountKey, updateProductContext } from '../../../services/accounts/dashboard-keys.ts';
import { parseBody, type DashboardState } from '../guard.ts';
import { idParam } from './ids.ts';

export interface KeysRouteDeps {
  clock: () => Date;
  /** Drafts a product context from its page (the guarded fetcher and the AI); rejects with a reason a person can read. */
  draftProductContext(url: string): Promise<ProductContext>;
}

export function keysRouter(deps: KeysRouteDeps): Router<DashboardState> {
  const router = new Router<DashboardState>();

  router.get('/keys', async (ctx) => {
    const { account } = ctx.state;
    const limit = PLANS[account.plan].maxActiveKeys;
    ctx.body = { keys: await listKeys(ctx.state.em, account), plan: account.plan, activeKeyLimit: limit };
  });

  router.post('/keys/draft', async (ctx) => {
    const { productUrl } = await parseBody(ctx, ZExtractRequest);
    ctx.body = { productContext: await deps.draftProductContext(productUrl) };
  });

  router.post('/keys', async (ctx) => {
    if (!ctx.state.user.emailVerified) throw new AppError('email_not_verified', 'Verify your e-mail address before creating a key.');
    const productContext = await parseBody(ctx, ZProductContextInput);
    try {
      const created = await createApiKey(ctx.state.em, { accountId: ctx.state.account.id, productContext });
      ctx.status = 201;
      // The only reply that ever carries the key (docs/api.md#authentication: shown once).
      ctx.body = { key: created.key, keyId: created.keyId, productId: created.productId };
    } catch (error) {
      if (error instanceof KeyLimitReached) {
        throw new AppError('key_limit_reached', `${error.message}. Upgrade on the Billing page for more keys.`, {
          plan: ctx.state.account.plan,
          limit: PLANS[ctx.state.account.plan].maxActiveKeys,
        });
      }
      throw error;
    }
  });

  router.post('/keys/:keyId/revoke', async (ctx) => {
    const keyId = idParam(ctx.params.keyId, 'key');
    if (!(await revokeAccountKey(ctx.state.em, ctx.state.account, keyId, deps.clock()))) throw new AppError('not_found', 'No such key.');
    ctx.body = { revoked: true };
  });

  router.put('/products/:productId', async (ctx) => {
    const productId = idParam(ctx.params.productId, 'product');
    const input = await parseBody(ctx, ZProductContextInput);
    if (!(await updateProductContext(ctx.state.em, ctx.state.account, productId, input))) throw new AppError('not_found', 'No such product.');
    ctx.body = { updated: true };
  });

  return router;
}
