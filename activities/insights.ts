import { Context, log } from '@temporalio/activity';
import type { InsightsGenerator, InsightsInput, InsightsResult } from '../domain/research/insights.ts';
import { FAILURE_TYPES } from '../domain/research/contract.ts';
import { inAccountTurn, type CallTurns } from './call-turns.ts';
import { withHeartbeat } from './heartbeat.ts';

export interface InsightsDeps {
  generator: InsightsGenerator;
  callTurns: CallTurns;
}

export function createInsightsActivities({ generator, callTurns }: InsightsDeps) {
  return {
    /**
     * docs/api.md#refunds, docs/api.md#freshness: when the model stays unusable the job still completes with
     * the AI fields null and no refund; that is a result, not an error.
     */
    async generateInsights(input: InsightsInput): Promise<InsightsResult | null> {
      try {
        const context = Context.current();
        // Each model call in its account's turn; the step heartbeats while its calls wait.
        return await withHeartbeat(() => generator.generate(input, (call) => inAccountTurn(callTurns.model, input.account, context, call)));
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
