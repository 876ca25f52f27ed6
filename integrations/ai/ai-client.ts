import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { ModelUsage } from '../../domain/research/insights.ts';
import type { AiConfig } from './ai-config.ts';
import { AiUnavailable } from './ai-errors.ts';
import { repairAnswer, toStrictJsonSchema } from './answer-repair.ts';

export interface StructuredRequest<T> {
  /** Name of the response schema, `[a-z_]+`; the model sees it. */
  schemaName: string;
  schema: z.ZodType<T>;
  system: string;
  user: string;
  /** Use the fast model (short extraction calls). */
  isFast?: boolean;
  /** Rules the JSON schema cannot state (e.g. "names the product"); returns the problems found. */
  check?: (value: T) => string[];
}

export interface StructuredAnswer<T> {
  value: T;
  usage: ModelUsage;
  model: string;
  /** The endpoint labelled its answer as the local sandbox's. */
  isSandbox: boolean;
}

/** The one client for every model call: structured output, retries, size repair, usage. */
export interface AiClient {
  readonly config: AiConfig;
  complete<T>(request: StructuredRequest<T>): Promise<StructuredAnswer<T>>;
}

export interface AiClientOptions {
  /** Replaces global fetch (tests that inspect traffic). */
  fetch?: typeof fetch;
}

/**
 * OpenAI answers an unpaid or exhausted account with a 429 whose error code is
 * `insufficient_quota` (https://platform.openai.com/docs/guides/error-codes).
 * It is a billing state, not a rate: the SDK would retry any 429, so such a
 * reply is marked `x-should-retry: false`, which the SDK honours.
 */
function withoutQuotaRetries(fetchImpl: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.status !== 429) return response;
    const body = await response.text();
    const headers = new Headers(response.headers);
    if (isInsufficientQuota(body)) headers.set('x-should-retry', 'false');
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
}

function isInsufficientQuota(body: unknown): boolean {
  try {
    const error = (typeof body === 'string' ? JSON.parse(body) : body) as { error?: { code?: unknown; type?: unknown } } | null;
    return error?.error?.code === 'insufficient_quota' || error?.error?.type === 'insufficient_quota';
  } catch {
    return false;
  }
}

export function createAiClient(config: AiConfig, logger: Logger, options: AiClientOptions = {}): AiClient {
  // The SDK retries connection errors, timeouts, 429 (honouring Retry-After) and 5xx with backoff.
  const openai = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    fetch: withoutQuotaRetries(options.fetch ?? globalThis.fetch),
  });

  async function callModel(model: string, schemaName: string, jsonSchema: Record<string, unknown>, messages: ChatCompletionMessageParam[]) {
    const startedAt = Date.now();
    try {
      // No sampling parameters: several model families reject any but their defaults.
      const completion = await openai.chat.completions.create({
        model,
        messages,
        response_format: { type: 'json_schema', json_schema: { name: schemaName, strict: true, schema: jsonSchema } },
      });
      logger.debug({ schemaName, model: completion.model, ms: Date.now() - startedAt, usage: completion.usage }, 'model call answered');
      return completion;
    } catch (error) {
      const failure = toAiUnavailable(error);
      const details = { schemaName, model, ms: Date.now() - startedAt, reason: failure.reason, err: failure.message };
      // Loud: someone has to pay the model provider; AI fields stay null until then.
      if (failure.reason === 'quota_exhausted') logger.error(details, 'model account has no quota left: not retried');
      else logger.warn(details, 'model call failed');
      throw failure;
    }
  }

  return {
    config,
    async complete<T>(request: StructuredRequest<T>): Promise<StructuredAnswer<T>> {
      const model = request.isFast ? config.fastModel : config.model;
      const jsonSchema = toStrictJsonSchema(request.schema);
      const messages: ChatCompletionMessageParam[] = [
        { role: 'system', content: request.system },
        { role: 'user', content: request.user },
      ];
      const usage: ModelUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
      let isSandbox = false;
      let answeredModel = model;
      // At most two answers: the first, and one corrective retry that says what was wrong.
      for (let attempt = 1; attempt <= 2; attempt += 1) {
        const completion = await callModel(model, request.schemaName, jsonSchema, messages);
        addUsage(usage, completion);
        isSandbox ||= completion.system_fingerprint?.startsWith('sandbox') ?? false;
        answeredModel = completion.model || model;
        const content = completion.choices[0]?.message.content ?? null;
        const outcome = judge(request, completion, content);
        if (outcome.ok) {
          if (outcome.trimmedPaths.length > 0) {
            logger.info({ schemaName: request.schemaName, trimmed: outcome.trimmedPaths }, 'model answer trimmed to the exact list sizes');
          }
          return { value: outcome.value, usage, model: answeredModel, isSandbox };
        }
        logger.warn({ schemaName: request.schemaName, attempt, problems: outcome.problems }, 'model answer rejected');
        if (attempt === 2) {
          throw new AiUnavailable('invalid_answer', `Model answer for ${request.schemaName} still invalid after a corrective retry: ${outcome.problems.join('; ')}`);
        }
        messages.push(
          { role: 'assistant', content: content ?? '' },
          {
            role: 'user',
            content: `Your answer was rejected because: ${outcome.problems.join('; ')}. Answer again with the complete JSON object, fixing exactly these problems and keeping every other rule.`,
          },
        );
      }
      throw new Error('unreachable: the attempt loop always returns or throws');
    },
  };
}

function judge<T>(request: StructuredRequest<T>, completion: ChatCompletion, content: string | null) {
  const choice = completion.choices[0];
  if (choice?.message.refusal) return { ok: false as const, problems: [`the model refused: ${choice.message.refusal}`] };
  if (choice?.finish_reason === 'length') return { ok: false as const, problems: ['the answer was cut off; answer more briefly'] };
  let answer: unknown;
  try {
    answer = JSON.parse(content ?? '');
  } catch {
    return { ok: false as const, problems: ['the answer is not a JSON object'] };
  }
  const outcome = repairAnswer(request.schema, answer);
  if (!outcome.ok || !request.check) return outcome;
  const problems = request.check(outcome.value);
  return problems.length > 0 ? { ok: false as const, problems } : outcome;
}

function addUsage(usage: ModelUsage, completion: ChatCompletion): void {
  usage.calls += 1;
  usage.promptTokens += completion.usage?.prompt_tokens ?? 0;
  usage.completionTokens += completion.usage?.completion_tokens ?? 0;
}

function toAiUnavailable(error: unknown): AiUnavailable {
  if (error instanceof AiUnavailable) return error;
  if (error instanceof APIConnectionTimeoutError) return new AiUnavailable('timeout', 'Model call timed out after retries', { cause: error });
  if (error instanceof APIConnectionError) return new AiUnavailable('unreachable', `Model endpoint unreachable: ${error.message}`, { cause: error });
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    if (status === 429 && (error.code === 'insufficient_quota' || error.type === 'insufficient_quota')) {
      return new AiUnavailable('quota_exhausted', `Model endpoint answered 429 insufficient_quota: ${error.message}`, { cause: error });
    }
    const reason = status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'rejected_request';
    return new AiUnavailable(reason, `Model endpoint answered ${status}: ${error.message}`, { cause: error });
  }
  return new AiUnavailable('unreachable', `Model call failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}
