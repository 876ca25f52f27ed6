import { createEnrichmentActivities, type EnrichmentDeps } from './enrichment.ts';
import { createInsightsActivities, type InsightsDeps } from './insights.ts';
import { createListActivities } from './lists.ts';
import { createPurgeActivities, type PurgeDeps } from './purge.ts';
import { createFanoutActivities, type FanoutDeps } from './research-fanout.ts';
import { createResearchJobActivities, type ResearchJobDeps } from './research-jobs.ts';
import { createStaleJobActivities, type StaleJobDeps } from './stale-jobs.ts';

export type ActivityDeps = ResearchJobDeps & EnrichmentDeps & InsightsDeps & StaleJobDeps & PurgeDeps & FanoutDeps;

/** Every activity of the worker, built once from its dependencies. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createResearchJobActivities(deps),
    ...createEnrichmentActivities(deps),
    ...createInsightsActivities(deps),
    ...createStaleJobActivities(deps),
    ...createPurgeActivities(deps),
    // The research fan-out of list and CRM runs, and the list run's steps.
    ...createFanoutActivities(deps),
    ...createListActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
