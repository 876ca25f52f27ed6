import { log } from '@temporalio/activity';
import type { InsightsGenerator, InsightsInput, InsightsResult } from '../domain/research/insights.ts';
import { FAILURE_TYPES } from '../domain/research/contract.ts';
import { withHeartbeat } from './heartbeat.ts';

export interface InsightsDeps {
  generator: InsightsGenerator;
}

export function createInsightsActivities({ generator }: InsightsDeps) {
  return {
    /**
     * docs/api.md#refunds, docs/api.md#freshness: when the model stays unusable the job still completes with
     * the AI fields null and no refund; that is a result, not an error.
     */
    async generateInsights(input: InsightsInput): Promise<InsightsResult | null> {
      try {
        return await withHeartbeat(() => generator.generate(input));
      } catch (error) {
        if (error instanceof Error && error.name === FAILURE_TYPES.aiUnavailable) {
          log.warn('AI step unavailable; completing without insights', { error });
          return null;
        }
        throw error;
      }
    },
  };
}
