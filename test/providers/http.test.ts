import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPdlClient } from '../../integrations/providers/pdl-client.ts';
import { ProviderError, retryAfterMs } from '../../integrations/providers/http.ts';
import type { ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { httpDeps, recordingLogger, startWorld } from './provider-fixture.ts';

let world: ProviderWorldHandle;
beforeAll(async () => { world = await startWorld(); });
afterAll(async () => { await world.close(); });
beforeEach(() => { world.setFaults(null); world.resetCalls(); });

function client(logger = recordingLogger(), overrides = {}, apiKey = 'test_key') {
  return createPdlClient({ baseUrl: `${world.url}/pdl`, apiKey, source: 'pdl' }, httpDeps(logger, overrides));
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('provider HTTP layer against the sandbox', () => {
  it('retries a 429 after the Retry-After delay and then succeeds', async () => {
    const email = world.world.samplePeople({ knownTo: 'pdl' }, 1)[0].email;
    world.setFaults({ 'pdl.person': { script: ['rate_limit'], retryAfterSeconds: 1 } });
    const started = Date.now();
    const person = await client().findPerson({ email });
    expect(person?.email).toBe(email);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(world.calls('pdl.person')).toBe(2);
  });

  it('does not wait for a Retry-After beyond the bound: fails as rate_limited at once', async () => {
    world.setFaults({ 'pdl.person': { script: ['rate_limit'], retryAfterSeconds: 3600 } });
    const started = Date.now();
    const error = await failure(client().findPerson({ email: 'x@acme.io' }));
    expect(error.kind).toBe('rate_limited');
    expect(error.status).toBe(429);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(world.calls('pdl.person')).toBe(1);
  });

  it('retries 5xx replies and succeeds when the provider recovers', async () => {
    const email = world.world.samplePeople({ knownTo: 'both' }, 1)[0].email;
    world.setFaults({ 'pdl.person': { script: ['server_error', 'unavailable'] } });
    expect((await client().findPerson({ email }))?.email).toBe(email);
    expect(world.calls('pdl.person')).toBe(3);
  });

  it('surfaces `unavailable` after the last attempt when 5xx persist', async () => {
    world.setFaults({ 'pdl.person': { serverErrorRate: 1 } });
    const error = await failure(client().findPerson({ email: 'x@acme.io' }));
    expect(error.kind).toBe('unavailable');
    expect(error.status).toBe(500);
    expect(world.calls('pdl.person')).toBe(3);
  });

  it('gives up on a held reply after the per-call timeout', async () => {
    world.setFaults({ 'pdl.person': { timeoutRate: 1 } });
    const started = Date.now();
    const error = await failure(client(recordingLogger(), { timeoutMs: 200, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 10, maxRetryAfterMs: 1000 } }).findPerson({ email: 'x@acme.io' }));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/timed out after 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(world.calls('pdl.person')).toBe(2);
  });

  it('does not retry bad credentials, logs them at error level and never logs the key', async () => {
    const logger = recordingLogger();
    const error = await failure(client(logger, {}, 'bad_secret_value').findPerson({ email: 'x@acme.io' }));
    expect(error.kind).toBe('credentials');
    expect(error.status).toBe(401);
    expect(world.calls('pdl.person')).toBe(1);
    expect(logger.entries.some((e) => e.level === 'error')).toBe(true);
    expect(JSON.stringify(logger.entries)).not.toContain('bad_secret_value');
  });

  it('classifies an exhausted plan (402) as quota, not retried', async () => {
    const error = await failure(client(recordingLogger(), {}, 'exhausted_key').findPerson({ email: 'x@acme.io' }));
    expect(error.kind).toBe('quota');
    expect(error.status).toBe(402);
    expect(world.calls('pdl.person')).toBe(1);
  });

  it('classifies a refused connection as unavailable', async () => {
    const dead = createPdlClient({ baseUrl: 'http://127.0.0.1:9/pdl', apiKey: 'k', source: 'pdl' }, httpDeps(recordingLogger(), { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 } }));
    const error = await failure(dead.findPerson({ email: 'x@acme.io' }));
    expect(error.kind).toBe('unavailable');
    expect(error.message).toMatch(/network error/);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
  });
});
