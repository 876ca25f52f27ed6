import { describe, expect, it } from 'vitest';
import { createAiConfig, DEFAULT_MODEL_SANDBOX_PORT } from '../../integrations/ai/ai-config.ts';

describe('AI configuration', () => {
  it('uses the sandbox when no endpoint or key is configured, and says so', () => {
    expect(createAiConfig({})).toMatchObject({
      baseUrl: `http://127.0.0.1:${DEFAULT_MODEL_SANDBOX_PORT}/v1`,
      source: 'sandbox',
      model: 'gpt-4o-mini',
      fastModel: 'gpt-4o-mini',
      timeoutMs: 30_000,
      maxRetries: 2,
    });
    expect(createAiConfig({ AI_SANDBOX_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: '  ' })).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1', source: 'sandbox' });
  });

  it('uses OpenAI when a key is set', () => {
    expect(createAiConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-4.1', OPENAI_FAST_MODEL: 'gpt-4.1-nano' })).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-test',
      source: 'openai',
      model: 'gpt-4.1',
      fastModel: 'gpt-4.1-nano',
    });
  });

  it('uses any OpenAI-compatible endpoint named by OPENAI_BASE_URL, keyed or not', () => {
    expect(createAiConfig({ OPENAI_BASE_URL: 'http://llm.internal:8000/v1' })).toMatchObject({ baseUrl: 'http://llm.internal:8000/v1', source: 'llm.internal' });
  });

  it('fails fast on invalid values, naming them', () => {
    expect(() => createAiConfig({ AI_TIMEOUT_MS: 'soon' })).toThrow(/AI_TIMEOUT_MS/);
    expect(() => createAiConfig({ OPENAI_BASE_URL: 'ftp://x' })).toThrow(/OPENAI_BASE_URL/);
  });
});
