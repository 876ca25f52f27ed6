import type { Logger } from 'pino';
import type { CompanyInsights, InsightsGenerator, InsightsInput, InsightsResult, ModelCallTurn, ModelUsage, ProspectInsights } from '../../domain/research/insights.ts';
import type { AiConfig } from './ai-config.ts';
import type { AiClient, AiClientOptions, StructuredAnswer } from './ai-client.ts';
import { createAiClient } from './ai-client.ts';
import { companyRequest, type CompanyAnswer } from './company-insights-prompt.ts';
import { prospectRequest, type ProspectAnswer } from './prospect-insights-prompt.ts';

/**
 * The AI step of the research pipeline: at most one model call per half
 * (plus one corrective retry when an answer has the wrong shape), both halves
 * in parallel, only the halves `input.needs` asks for. A half whose subject was
 * not found (no person, no company) stays null: there is nothing to ground it in.
 */
export function createInsightsGenerator(config: AiConfig, logger: Logger, options: AiClientOptions = {}): InsightsGenerator {
  return createInsightsGeneratorFromClient(createAiClient(config, logger, options));
}

export function createInsightsGeneratorFromClient(client: AiClient): InsightsGenerator {
  return {
    async generate(input: InsightsInput, turn: ModelCallTurn = (call) => call()): Promise<InsightsResult> {
      const person = input.needs.prospect ? input.person : null;
      const company = input.needs.company ? input.company : null;
      // Both halves start before either is awaited; if one fails the step fails as a whole (docs/api.md#refunds).
      const [prospectAnswer, companyAnswer] = await Promise.all([
        person ? turn(() => client.complete(prospectRequest(input, person))) : null,
        company ? turn(() => client.complete(companyRequest(input, company))) : null,
      ]);
      const answers: StructuredAnswer<unknown>[] = [prospectAnswer, companyAnswer].filter((answer) => answer !== null);
      return {
        prospect: prospectAnswer ? toProspectInsights(prospectAnswer.value) : null,
        company: companyAnswer ? toCompanyInsights(companyAnswer.value) : null,
        usage: sumUsage(answers),
        source: answers.some((answer) => answer.isSandbox) ? 'sandbox' : client.config.source,
        model: answers[0]?.model ?? client.config.model,
      };
    },
  };
}

// The answers were parsed by their zod schemas (unknown keys dropped); only a
// translation that was not asked for (no source text) becomes null.
function toProspectInsights(answer: ProspectAnswer): ProspectInsights {
  return { ...answer, titleEnglish: answer.titleEnglish ?? null };
}

function toCompanyInsights(answer: CompanyAnswer): CompanyInsights {
  return { ...answer, descriptionEnglish: answer.descriptionEnglish ?? null };
}

function sumUsage(answers: StructuredAnswer<unknown>[]): ModelUsage {
  return answers.reduce<ModelUsage>(
    (total, answer) => ({
      calls: total.calls + answer.usage.calls,
      promptTokens: total.promptTokens + answer.usage.promptTokens,
      completionTokens: total.completionTokens + answer.usage.completionTokens,
    }),
    { calls: 0, promptTokens: 0, completionTokens: 0 },
  );
}
