import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAiConfig } from '../../integrations/ai/ai-config.ts';
import { createProviderConfig } from '../../integrations/providers/config.ts';
import { loadApiConfig, loadConfig } from '../../lib/config.ts';
import { CONFIG_ERROR_EXIT_CODE, ConfigError, envVar, loadDotEnv, parseEnv } from '../../lib/env.ts';
import { ROOT } from '../../scripts/lib/local-services.ts';

const run = promisify(execFile);
const DATABASE_URL = 'postgres://u:p@127.0.0.1:5432/db';

function problemsOf(parse: () => unknown): string[] {
  try {
    parse();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('parsed without a problem');
}

describe('blank values count as unset', () => {
  it('PORT, TEMPORAL_ADDRESS and friends fall back to their defaults', () => {
    const config = loadConfig({ DATABASE_URL, PORT: '', TEMPORAL_ADDRESS: '  ', TEMPORAL_TASK_QUEUE: '', LOG_LEVEL: '' });
    expect(config.port).toBe(3000);
    expect(config.temporal).toMatchObject({ address: '127.0.0.1:7233', taskQueue: 'research' });
    expect(config.logLevel).toBe('info');
  });

  it('in the provider and AI settings too', () => {
    expect(createProviderConfig({ ALLOW_PRIVATE_HOSTS: '', PROVIDER_TIMEOUT_MS: '' })).toMatchObject({ outboundPolicy: { allowedPrivateHosts: new Set() }, timeoutMs: 10_000 });
    expect(createAiConfig({ OPENAI_API_KEY: '', OPENAI_BASE_URL: ' ', AI_TIMEOUT_MS: '' })).toMatchObject({ source: 'sandbox', timeoutMs: 30_000 });
  });

  it('a blank required variable is reported as not set', () => {
    expect(problemsOf(() => loadConfig({ DATABASE_URL: '' }))).toEqual([
      'DATABASE_URL is not set: expected a URL starting with postgres:// or postgresql://',
    ]);
  });

  it('every config module accepts `.env.example` sourced by a shell, as the README once suggested', async () => {
    const script = [
      "import { loadConfig } from './lib/config.ts';",
      "import { createProviderConfig } from './integrations/providers/config.ts';",
      "import { createAiConfig } from './integrations/ai/ai-config.ts';",
      `loadConfig({ ...process.env, DATABASE_URL: '${DATABASE_URL}' }); createProviderConfig(process.env); createAiConfig(process.env);`,
      "process.stdout.write('ok');",
    ].join('\n');
    const { stdout } = await run('bash', ['-c', `set -a; . ./.env.example; set +a; exec "${process.execPath}" --input-type=module -e "$0"`, script], { cwd: ROOT });
    expect(stdout).toBe('ok');
  });
});

describe('a bad value', () => {
  it('is one line naming the variable, its value and what it accepts', () => {
    expect(problemsOf(() => loadConfig({ DATABASE_URL, PORT: 'abc' }))).toEqual(['PORT="abc" is not accepted: expected a whole number from 0 to 65535']);
    expect(problemsOf(() => createProviderConfig({ PROVIDER_TIMEOUT_MS: 'soon' }))).toEqual([
      'PROVIDER_TIMEOUT_MS="soon" is not accepted: expected a whole number from 100 to 120000',
    ]);
    expect(problemsOf(() => loadConfig({ DATABASE_URL, LOG_LEVEL: 'loud', TEMPORAL_ADDRESS: 'temporal' }))).toEqual([
      'TEMPORAL_ADDRESS="temporal" is not accepted: expected host:port, e.g. 127.0.0.1:7233',
      'LOG_LEVEL="loud" is not accepted: expected one of fatal, error, warn, info, debug, trace, silent',
    ]);
  });

  it('never shows the value of a secret', () => {
    const ZSecret = z.object({ STRIPE_SECRET_KEY: envVar.url(['https']) });
    expect(problemsOf(() => parseEnv(ZSecret, { STRIPE_SECRET_KEY: 'sk_live_123' }))).toEqual([
      'STRIPE_SECRET_KEY=… is not accepted: expected a URL starting with https://',
    ]);
  });

  it('stops the API with that line and exit code 78, no stack trace', async () => {
    const failure = await run(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'api/main.ts')], {
      env: { PATH: process.env.PATH, DATABASE_URL, PORT: 'abc' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failure && failure.code).toBe(CONFIG_ERROR_EXIT_CODE);
    expect((failure as { stderr: string }).stderr).toBe('api: configuration: PORT="abc" is not accepted: expected a whole number from 0 to 65535\n');
  });

  it('stops the worker the same way, for its provider settings too', async () => {
    const failure = await run(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'worker/main.ts')], {
      env: { PATH: process.env.PATH, DATABASE_URL, PROVIDER_TIMEOUT_MS: 'sometimes' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failure && failure.code).toBe(CONFIG_ERROR_EXIT_CODE);
    expect((failure as { stderr: string }).stderr).toBe(
      'worker: configuration: PROVIDER_TIMEOUT_MS="sometimes" is not accepted: expected a whole number from 100 to 120000\n',
    );
  });
});

describe("the API's /metrics in production", () => {
  const production = { DATABASE_URL, NODE_ENV: 'production' };

  it('needs METRICS_BEARER_TOKEN, since it shares the public port', () => {
    expect(problemsOf(() => loadApiConfig({ ...production, METRICS_BEARER_TOKEN: ' ' }))).toEqual([
      "METRICS_BEARER_TOKEN is not set: required when NODE_ENV=production, since the API's /metrics is on its public port (Prometheus sends it as `Authorization: Bearer <token>`)",
    ]);
    expect(loadApiConfig({ ...production, METRICS_BEARER_TOKEN: 'scrape-secret' }).metricsBearerToken).toBe('scrape-secret');
    // Development and the worker (its metrics have their own listener) go without.
    expect(loadApiConfig({ DATABASE_URL }).metricsBearerToken).toBeNull();
    expect(loadConfig(production).metricsBearerToken).toBeNull();
  });

  it('without it, the API does not start: one line, exit code 78', async () => {
    const failure = await run(process.execPath, ['--disable-warning=ExperimentalWarning', join(ROOT, 'api/main.ts')], {
      env: { PATH: process.env.PATH, ...production },
    }).catch((error: { code: number; stderr: string }) => error);
    expect('code' in failure && failure.code).toBe(CONFIG_ERROR_EXIT_CODE);
    expect((failure as { stderr: string }).stderr).toMatch(/^api: configuration: METRICS_BEARER_TOKEN is not set: required when NODE_ENV=production/);
  });
});

describe('.env in the root', () => {
  it('fills what the environment leaves unset or blank; the environment wins', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotenv-'));
    const file = join(dir, '.env');
    writeFileSync(file, 'PORT=3100   # the API\nHOST=0.0.0.0\nLOG_LEVEL=debug\nexport TEMPORAL_NAMESPACE="jobs"\n');
    const env: Record<string, string | undefined> = { PORT: '3200', HOST: '' };
    expect(loadDotEnv(file, env).sort()).toEqual(['HOST', 'LOG_LEVEL', 'TEMPORAL_NAMESPACE']);
    expect(env).toEqual({ PORT: '3200', HOST: '0.0.0.0', LOG_LEVEL: 'debug', TEMPORAL_NAMESPACE: 'jobs' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('a missing file is no error', () => {
    expect(loadDotEnv(join(tmpdir(), 'no-such-dir', '.env'), {})).toEqual([]);
  });
});
