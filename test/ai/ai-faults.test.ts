import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPENING_TALK_COUNT } from '../../domain/research/insights.ts';
import { startModelSandbox, type ModelSandbox } from '../../sandbox/model/model-sandbox.ts';
import { insightsInput, sandboxGenerator } from './ai-fixtures.ts';

let sandbox: ModelSandbox;
beforeAll(async () => {
  sandbox = await startModelSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const prospectOnly = () => insightsInput({ needs: { prospect: true, company: false } });

describe('wrong-size answers', () => {
  it('trims lists that are too long, without another call', async () => {
    const expected = await sandboxGenerator(sandbox).generate(insightsInput());
    sandbox.reset();
    sandbox.setFaults({ mode: 'wrongSize', wrongSize: 'extra' });
    const result = await sandboxGenerator(sandbox).generate(insightsInput());

    expect(sandbox.calls()).toBe(2);
    expect(result.prospect).toEqual(expected.prospect);
    expect(result.company).toEqual(expected.company);
  });

  it('retries once with a message saying what was wrong when a list is too short', async () => {
    sandbox.setFaults({ mode: 'wrongSize', wrongSize: 'missing', times: 1 });
    const result = await sandboxGenerator(sandbox).generate(prospectOnly());

    expect(result.prospect!.openingTalk).toHaveLength(OPENING_TALK_COUNT);
    expect(result.usage.calls).toBe(2);
    const [first, retry] = sandbox.requests();
    expect(first.fault).toBe('wrongSize');
    expect(retry.messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(retry.messages[3].content).toContain('"openingTalk" has 2 item(s) but must have exactly 3');
  });

  it('rejects with AiUnavailable (invalid_answer) when the retry is still wrong', async () => {
    sandbox.setFaults({ mode: 'wrongSize', wrongSize: 'missing' });
    const failure = await sandboxGenerator(sandbox).generate(prospectOnly()).catch((error: unknown) => error);

    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'invalid_answer' });
    expect(sandbox.calls()).toBe(2);
  });
});

describe('endpoint failures', () => {
  it('retries a 500 and succeeds when the endpoint recovers', async () => {
    sandbox.setFaults({ mode: 'serverError', times: 1 });
    const result = await sandboxGenerator(sandbox).generate(prospectOnly());
    expect(result.prospect).not.toBeNull();
    expect(sandbox.requests().map((request) => request.status)).toEqual([500, 200]);
  });

  it('rejects with AiUnavailable (server_error) after the retries when 500 persists', async () => {
    sandbox.setFaults({ mode: 'serverError' });
    const failure = await sandboxGenerator(sandbox, { AI_MAX_RETRIES: '2' }).generate(prospectOnly()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'server_error' });
    expect(sandbox.calls()).toBe(3);
  });

  it('waits for Retry-After on a 429 and then succeeds', async () => {
    sandbox.setFaults({ mode: 'rateLimit', retryAfterSeconds: 1, times: 1 });
    const startedAt = Date.now();
    const result = await sandboxGenerator(sandbox).generate(prospectOnly());
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(950);
    expect(result.prospect).not.toBeNull();
    expect(sandbox.requests().map((request) => request.status)).toEqual([429, 200]);
  });

  it('rejects with AiUnavailable (rate_limited) when 429 persists', async () => {
    sandbox.setFaults({ mode: 'rateLimit', retryAfterSeconds: 0 });
    const failure = await sandboxGenerator(sandbox).generate(prospectOnly()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'rate_limited' });
    expect(sandbox.calls()).toBe(2);
  });

  it('rejects with AiUnavailable (unreachable) when connections are dropped', async () => {
    sandbox.setFaults({ mode: 'down' });
    const failure = await sandboxGenerator(sandbox).generate(insightsInput()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'unreachable' });
    expect(sandbox.calls()).toBeGreaterThanOrEqual(2);
  });

  it('rejects with AiUnavailable (unreachable) when nothing listens', async () => {
    const closed = await startModelSandbox();
    await closed.close();
    const failure = await sandboxGenerator(closed).generate(prospectOnly()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'unreachable' });
  });

  it('rejects with AiUnavailable (timeout) when the endpoint hangs', async () => {
    sandbox.setFaults({ mode: 'hang' });
    const failure = await sandboxGenerator(sandbox, { AI_TIMEOUT_MS: '300' }).generate(prospectOnly()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'timeout' });
    expect(sandbox.calls()).toBe(2);
  });

  it('rejects with AiUnavailable (rejected_request) for an unknown model, without retrying', async () => {
    const failure = await sandboxGenerator(sandbox, { OPENAI_MODEL: 'no-such-model' }).generate(prospectOnly()).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'AiUnavailable', reason: 'rejected_request' });
    expect(sandbox.requests().map((request) => request.status)).toEqual([404]);
  });
});
