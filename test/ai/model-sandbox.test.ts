import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startModelSandbox, type ModelSandbox } from '../../sandbox/model/model-sandbox.ts';

let sandbox: ModelSandbox;
beforeAll(async () => {
  sandbox = await startModelSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const schema = {
  type: 'object',
  properties: { summary: { type: 'string' }, items: { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 2 } },
  required: ['summary', 'items'],
  additionalProperties: false,
};
const validBody = {
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: 'Output language: Dutch (nl). Write every text field in Dutch.' },
    { role: 'user', content: '<untrusted_data>{"person":{"fullName":"Sanne de Vries"}}</untrusted_data>' },
  ],
  response_format: { type: 'json_schema', json_schema: { name: 'note', strict: true, schema } },
};

async function chat(body: unknown, headers: Record<string, string> = { authorization: 'Bearer test-key' }) {
  const response = await fetch(`${sandbox.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

describe('model sandbox protocol', () => {
  it('answers a valid request in the OpenAI chat completion shape, labelled as the sandbox', async () => {
    const { status, body, headers } = await chat(validBody);
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'chat.completion', model: 'gpt-4o-mini', system_fingerprint: 'sandbox-model' });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.choices[0].finish_reason).toBe('stop');
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(headers.get('x-sandbox')).toBe('sandbox-model');
    const content = JSON.parse(body.choices[0].message.content);
    expect(Object.keys(content)).toEqual(['summary', 'items']);
    expect(content.items).toHaveLength(2); // from minItems/maxItems
    expect(content.items[0]).toMatch(/^Punt 1 over items/); // generic Dutch text for an unknown field
  });

  it.each([
    ['no API key', validBody, {}, 401, { type: 'invalid_request_error' }],
    ['no model', { ...validBody, model: undefined }, undefined, 400, { param: 'model' }],
    ['an unknown model', { ...validBody, model: 'gpt-imaginary' }, undefined, 404, { code: 'model_not_found' }],
    ['no messages', { ...validBody, messages: [] }, undefined, 400, { param: 'messages', code: 'invalid_type' }],
    ['a bad role', { ...validBody, messages: [{ role: 'robot', content: 'x' }] }, undefined, 400, { param: 'messages[0].role' }],
    ['no response_format', { ...validBody, response_format: undefined }, undefined, 400, { param: 'response_format' }],
    [
      'a strict schema with an open object',
      { ...validBody, response_format: { type: 'json_schema', json_schema: { name: 'note', strict: true, schema: { ...schema, additionalProperties: undefined } } } },
      undefined,
      400,
      { code: 'invalid_json_schema' },
    ],
    [
      'a strict schema with an optional property',
      { ...validBody, response_format: { type: 'json_schema', json_schema: { name: 'note', strict: true, schema: { ...schema, required: ['summary'] } } } },
      undefined,
      400,
      { code: 'invalid_json_schema' },
    ],
  ] as const)('rejects a request with %s, in the OpenAI error shape', async (_case, body, headers, status, error) => {
    const reply = await chat(body, headers as Record<string, string> | undefined);
    expect(reply.status).toBe(status);
    expect(Object.keys(reply.body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(reply.body.error).toMatchObject(error);
    expect(sandbox.requests().at(-1)!.status).toBe(status);
  });

  it('lists its models', async () => {
    const response = await fetch(`${sandbox.url}/models`);
    const body = (await response.json()) as { data: { id: string }[] };
    expect(body.data.map((model) => model.id)).toContain('gpt-4o-mini');
  });

  it('is steered by other processes through the admin endpoints', async () => {
    const configured = await fetch(`${sandbox.origin}/__admin/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ faults: { mode: 'serverError', times: 1 }, latencyMs: 5 }),
    });
    expect(await configured.json()).toMatchObject({ faults: { mode: 'serverError', times: 1 }, latencyMs: 5 });
    expect((await chat(validBody)).status).toBe(500);
    expect((await chat(validBody)).status).toBe(200);

    const calls = (await (await fetch(`${sandbox.origin}/__admin/calls`)).json()) as { calls: number; requests: { status: number; language: string }[] };
    expect(calls.calls).toBe(2);
    expect(calls.requests.map((request) => request.status)).toEqual([500, 200]);
    expect(calls.requests[1].language).toBe('nl');

    await fetch(`${sandbox.origin}/__admin/reset`, { method: 'POST' });
    expect(sandbox.calls()).toBe(0);
    expect(sandbox.requests()).toEqual([]);
  });

  it('rejects an invalid fault setting and keeps the log of unanswered requests intact', async () => {
    sandbox.setFaults({ mode: 'down', times: 1 });
    await expect(chat(validBody)).rejects.toThrow(/fetch failed/);
    const refused = await fetch(`${sandbox.origin}/__admin/config`, { method: 'POST', body: JSON.stringify({ faults: { mode: 'sometimes' } }) });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { param: string } }).error.param).toBe('faults');
    expect(sandbox.requests().map((request) => [request.fault, request.status])).toEqual([['down', 0]]);
  });

  it('answers 429 with a Retry-After header in rate-limit mode', async () => {
    sandbox.setFaults({ mode: 'rateLimit', retryAfterSeconds: 7 });
    const reply = await chat(validBody);
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).toBe('7');
    expect(reply.body.error.code).toBe('rate_limit_exceeded');
  });
});
