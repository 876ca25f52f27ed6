import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createAiClient } from '../../integrations/ai/ai-client.ts';
import { createAiConfig } from '../../integrations/ai/ai-config.ts';
import { AiUnavailable } from '../../integrations/ai/ai-errors.ts';
import { startFixtureServer } from '../providers/fixture-server.ts';

// OpenAI's documented 429 for an account without quota, "You exceeded your
// current quota, please check your plan and billing details":
// https://platform.openai.com/docs/guides/error-codes (API errors, 429).
const INSUFFICIENT_QUOTA = {
  error: {
    message: 'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
    type: 'insufficient_quota',
    param: null,
    code: 'insufficient_quota',
  },
};
// A plain rate limit, documented on the same page: retried.
const RATE_LIMITED = { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } };

let server: Awaited<ReturnType<typeof startFixtureServer>>;
beforeAll(async () => { server = await startFixtureServer(); });
afterAll(async () => { await server.close(); });

function recordingLogger() {
  const entries: { level: string; message: string }[] = [];
  const log = (level: string) => (_details: object, message: string) => void entries.push({ level, message });
  return { entries, logger: { error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') } as unknown as Logger };
}

const request = { schemaName: 'probe', schema: z.object({ ok: z.boolean() }), system: 's', user: 'u' };
const client = (logger: Logger) => createAiClient(createAiConfig({ OPENAI_BASE_URL: `${server.url}/v1`, OPENAI_API_KEY: 'sk-test', AI_MAX_RETRIES: '2' }), logger);

describe('an OpenAI account without quota', () => {
  it('is not retried: one call, logged at error level, AiUnavailable quota_exhausted', async () => {
    const { entries, logger } = recordingLogger();
    server.reply({ status: 429, body: INSUFFICIENT_QUOTA });
    const error = await client(logger).complete(request).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(AiUnavailable);
    expect((error as AiUnavailable).reason).toBe('quota_exhausted');
    expect(server.requests).toHaveLength(1);
    expect(entries.filter((e) => e.level === 'error')).toHaveLength(1);
  });

  it('differs from a rate limit, which the client retries', async () => {
    const { logger } = recordingLogger();
    server.reply({ status: 429, body: RATE_LIMITED, headers: { 'retry-after': '0' } });
    const error = await client(logger).complete(request).then(() => null, (e: unknown) => e);
    expect((error as AiUnavailable).reason).toBe('rate_limited');
    expect(server.requests).toHaveLength(3);
  });
});
