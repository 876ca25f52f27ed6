import { createInsightsGenerator, createAiConfig } from '../integrations/ai/index.ts';
import { createEnrichmentSources } from '../integrations/providers/waterfall-sources.ts';
import { createProviderConfig } from '../integrations/providers/config.ts';
import { initOrm, type Orm } from '../db/orm.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/logger.ts';
import type { ActivityDeps } from '../activities/index.ts';
import { connectTemporalClient } from '../lib/temporal-client.ts';

/** Builds every dependency of the activities once, from the environment. */
export async function buildActivityDeps(config: Config, logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<ActivityDeps & { orm: Orm }> {
  const orm = await initOrm(config.databaseUrl, { migrate: false, poolMax: config.dbPoolMax });
  return {
    orm,
    clock: () => new Date(),
    sources: createEnrichmentSources(createProviderConfig(env), logger.child({ component: 'providers' })),
    generator: createInsightsGenerator(createAiConfig(env), logger.child({ component: 'ai' })),
    temporal: await connectTemporalClient(config),
    staleAfterMs: config.researchOverdueAfterMs,
  };
}
