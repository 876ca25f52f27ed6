import { createInsightsGenerator, type AiConfig } from '../integrations/ai/index.ts';
import { createEnrichmentSources } from '../integrations/providers/waterfall-sources.ts';
import type { ProviderConfig } from '../integrations/providers/config.ts';
import { initOrm, type Orm } from '../db/orm.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { ActivityDeps } from '../activities/index.ts';
import { createCallTurns } from '../activities/call-turns.ts';
import { connectTemporalClient } from '../lib/temporal-client.ts';
import { meterModelFetch, meterProviderFetch } from './metered-fetch.ts';

/**
 * Builds every dependency of the activities once, from settings parsed at
 * start-up; provider and model calls go through metered fetches (/metrics).
 */
export async function buildActivityDeps(
  config: Config,
  logger: Logger,
  outside: { providers: ProviderConfig; ai: AiConfig },
): Promise<ActivityDeps & { orm: Orm }> {
  const orm = await initOrm(config.databaseUrl, { migrate: false, poolMax: config.dbPoolMax });
  return {
    orm,
    clock: () => new Date(),
    sources: createEnrichmentSources(outside.providers, logger.child({ component: 'providers' }), { fetch: meterProviderFetch(outside.providers) }),
    generator: createInsightsGenerator(outside.ai, logger.child({ component: 'ai' }), { fetch: meterModelFetch() }),
    temporal: await connectTemporalClient(config),
    staleAfterMs: config.researchOverdueAfterMs,
    callTurns: createCallTurns(config.callCaps),
  };
}
