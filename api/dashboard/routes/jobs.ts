import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import { ZJobFilter } from '../../../domain/dashboard/schemas.ts';
import { AppError } from '../../../domain/errors.ts';
import { jobDetail, listJobs } from '../../../services/research/dashboard-jobs.ts';
import { parseWith, type DashboardState } from '../guard.ts';

const RESEARCH_ID_SHAPE = /^res_[0-9A-Za-z_-]{10,64}$/;

export function jobsRouter(deps: { temporal: Client }): Router<DashboardState> {
  const router = new Router<DashboardState>();

  router.get('/jobs', async (ctx) => {
    const filter = parseWith(ZJobFilter, { ...ctx.query });
    ctx.body = await listJobs(ctx.state.em, ctx.state.account, filter);
  });

  router.get('/jobs/:researchId', async (ctx) => {
    const { researchId } = ctx.params;
    const job = RESEARCH_ID_SHAPE.test(researchId ?? '') ? await jobDetail(ctx.state.em, deps.temporal, ctx.state.account, researchId!) : null;
    if (!job) throw new AppError('not_found', 'No such job.');
    ctx.body = job;
  });

  return router;
}
