import { createEnrichmentActivities, type EnrichmentDeps } from './enrichment.ts';
import { createInsightsActivities, type InsightsDeps } from './insights.ts';
import { createResearchJobActivities, type ResearchJobDeps } from './research-jobs.ts';

export type ActivityDeps = ResearchJobDeps & EnrichmentDeps & InsightsDeps;

/** Every activity of the worker, built once from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createResearchJobActivities(deps),
    ...createEnrichmentActivities(deps),
    ...createInsightsActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
