import { z } from 'zod';

/** Where the sandbox listens in local development (`npm run dev` starts it). */
export const DEFAULT_MODEL_SANDBOX_PORT = 4110;

const ZAiEnv = z.object({
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /** Model for short extraction calls (product pages); defaults to OPENAI_MODEL. */
  OPENAI_FAST_MODEL: z.string().min(1).optional(),
  AI_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  AI_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  AI_SANDBOX_URL: z.url({ protocol: /^https?$/ }).default(`http://127.0.0.1:${DEFAULT_MODEL_SANDBOX_PORT}/v1`),
});

export interface AiConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  fastModel: string;
  timeoutMs: number;
  maxRetries: number;
  /** `sandbox` for the local stand-in, else the provider name (`openai` or the endpoint's host). */
  source: string;
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * A real endpoint is used as soon as a key or a base URL is configured (local
 * OpenAI-compatible servers often need no key); otherwise the sandbox, so that
 * development and tests never need credentials and never pretend to be real.
 */
export function createAiConfig(env: NodeJS.ProcessEnv = process.env): AiConfig {
  const parsed = ZAiEnv.safeParse(blankToUndefined(env));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid AI configuration: ${problems}`);
  }
  const e = parsed.data;
  const isReal = e.OPENAI_API_KEY !== undefined || e.OPENAI_BASE_URL !== undefined;
  const baseUrl = isReal ? (e.OPENAI_BASE_URL ?? OPENAI_BASE_URL) : e.AI_SANDBOX_URL;
  return {
    baseUrl,
    // The SDK refuses to start without a key; keyless endpoints ignore this one.
    apiKey: e.OPENAI_API_KEY ?? (isReal ? 'no-key' : 'sandbox'),
    model: e.OPENAI_MODEL,
    fastModel: e.OPENAI_FAST_MODEL ?? e.OPENAI_MODEL,
    timeoutMs: e.AI_TIMEOUT_MS,
    maxRetries: e.AI_MAX_RETRIES,
    source: isReal ? providerName(baseUrl) : 'sandbox',
  };
}

function providerName(baseUrl: string): string {
  const host = new URL(baseUrl).hostname;
  return host === 'api.openai.com' ? 'openai' : host;
}

// An exported-but-empty variable (`OPENAI_API_KEY=`) means "not set", not "empty key".
function blankToUndefined(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value?.trim() ? value : undefined]));
}
