import Router from '@koa/router';
import { ZPlanChoice } from '../../../domain/dashboard/schemas.ts';
import { planRank } from '../../../domain/billing/plans.ts';
import {
  billingOverview,
  portalUrl,
  revokePendingChange,
  scheduleDowngrade,
  startCheckout,
  upgrade,
  type Billing,
} from '../../../services/billing/billing.ts';
import { parseBody, type DashboardState } from '../guard.ts';

/**
 * The Billing page's calls. None of them changes a plan or a credit: Stripe's
 * verified webhooks do (docs/decisions.md#plans); a redirect back from Checkout
 * only shows that the payment is being confirmed.
 */
export function billingRouter(deps: { billing: Billing; publicUrl: string; clock: () => Date }): Router<DashboardState> {
  const router = new Router<DashboardState>();
  const pageUrl = (query: string) => `${deps.publicUrl}/app/billing${query}`;

  router.get('/billing', async (ctx) => {
    ctx.body = await billingOverview(ctx.state.em, deps.billing, ctx.state.account.id, deps.clock());
  });

  /** One call for every plan change: Checkout from Free, an immediate upgrade, or a change at the cycle's end. */
  router.post('/billing/plan', async (ctx) => {
    const { plan } = await parseBody(ctx, ZPlanChoice);
    const { account, em } = ctx.state;
    if (planRank(plan) > planRank(account.plan)) {
      ctx.body = account.plan === 'free'
        ? { next: 'checkout', ...(await startCheckout(em, deps.billing, account.id, plan, { successUrl: pageUrl('?checkout=success'), cancelUrl: pageUrl('?checkout=cancelled') })) }
        : { next: 'confirming', ...(await upgrade(em, deps.billing, account.id, plan)) };
      return;
    }
    ctx.body = { next: 'scheduled', pendingChange: await scheduleDowngrade(em, deps.billing, account.id, plan) };
  });

  router.post('/billing/pending-change/revoke', async (ctx) => {
    await revokePendingChange(ctx.state.em, deps.billing, ctx.state.account.id);
    ctx.body = { revoked: true };
  });

  router.post('/billing/portal', async (ctx) => {
    ctx.body = await portalUrl(ctx.state.em, deps.billing, ctx.state.account.id, pageUrl(''));
  });

  return router;
}
