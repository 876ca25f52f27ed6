import Router from '@koa/router';
import { ZPreferences } from '../../../domain/dashboard/schemas.ts';
import { PLANS } from '../../../domain/billing/plans.ts';
import { creditStatement } from '../../../services/accounts/accounts.ts';
import { usageOfCycle } from '../../../services/billing/usage.ts';
import { parseBody, type DashboardState } from '../guard.ts';

/** The signed-in account itself: who, which plan, its preferences and its usage. */
export function accountRouter(): Router<DashboardState> {
  const router = new Router<DashboardState>();

  router.get('/me', async (ctx) => {
    const { account, user } = ctx.state;
    ctx.body = {
      email: user.email,
      emailVerified: user.emailVerified,
      accountId: account.id,
      plan: PLANS[account.plan],
      language: account.language,
      usageAlerts: account.usageAlertsEnabled,
      credits: creditStatement(account),
    };
  });

  router.put('/preferences', async (ctx) => {
    const preferences = await parseBody(ctx, ZPreferences);
    ctx.state.account.language = preferences.language;
    ctx.state.account.usageAlertsEnabled = preferences.usageAlerts;
    await ctx.state.em.flush();
    ctx.body = preferences;
  });

  router.get('/usage', async (ctx) => {
    const cycle = typeof ctx.query.cycle === 'string' ? ctx.query.cycle : undefined;
    ctx.body = await usageOfCycle(ctx.state.em, ctx.state.account, cycle);
  });

  return router;
}
