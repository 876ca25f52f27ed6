import { z } from 'zod';
import { envVar, parseEnv, type Env } from '../../lib/env.ts';

/** Where the sandbox listens in local development (`npm run dev` starts it). */
export const DEFAULT_MODEL_SANDBOX_PORT = 4110;

// Blank values count as unset (lib/env.ts parseEnv): `OPENAI_API_KEY=` is no key, not an empty one.
const ZAiEnv = z.object({
  OPENAI_BASE_URL: envVar.url(['http', 'https']).optional(),
  OPENAI_API_KEY: envVar.text().optional(),
  OPENAI_MODEL: envVar.text().default('gpt-4o-mini'),
  /** Model for short extraction calls (product pages); defaults to OPENAI_MODEL. */
  OPENAI_FAST_MODEL: envVar.text().optional(),
  AI_TIMEOUT_MS: envVar.int({ min: 1 }).default(30_000),
  AI_MAX_RETRIES: envVar.int({ min: 0, max: 10 }).default(2),
  AI_SANDBOX_URL: envVar.url(['http', 'https']).default(`http://127.0.0.1:${DEFAULT_MODEL_SANDBOX_PORT}/v1`),
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
export function createAiConfig(env: Env = process.env): AiConfig {
  const e = parseEnv(ZAiEnv, env);
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
