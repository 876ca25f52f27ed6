import { startProviderWorld, type ProviderWorldHandle } from '../../sandbox/provider-world/server.ts';
import { createProviderConfig, type ProviderConfig } from '../../integrations/providers/config.ts';
import type { HttpDeps, ProviderLogger } from '../../integrations/providers/http.ts';

export interface LogEntry {
  level: 'error' | 'warn' | 'debug';
  details: object;
  message: string;
}

/** Records what the clients log, so tests can check levels and that no key leaks. */
export function recordingLogger(): ProviderLogger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const log = (level: LogEntry['level']) => (details: object, message: string) => void entries.push({ level, details, message });
  return { entries, error: log('error'), warn: log('warn'), debug: log('debug') };
}

/** Fast retries: the behaviour is the same, the suite stays quick. */
export const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 3_000 };

export function httpDeps(logger: ProviderLogger, overrides: Partial<HttpDeps> = {}): HttpDeps {
  return { fetch: globalThis.fetch, logger, timeoutMs: 2_000, retry: FAST_RETRY, ...overrides };
}

/** Fixed reference date: the world's timeline and the tests' "now" agree. */
export const WORLD_NOW = new Date('2026-06-15T12:00:00Z');

export function startWorld(): Promise<ProviderWorldHandle> {
  return startProviderWorld({ seed: 1234, now: WORLD_NOW, timeoutHoldMs: 5_000 });
}

/** Real-provider style config pointing at the sandbox, so sources read `pdl`/`apollo`/… */
export function directConfig(world: ProviderWorldHandle, env: Record<string, string> = {}): ProviderConfig {
  return createProviderConfig({
    PDL_API_KEY: 'test_pdl', PDL_BASE_URL: `${world.url}/pdl`,
    APOLLO_API_KEY: 'test_apollo', APOLLO_BASE_URL: `${world.url}/apollo`,
    SOCIAL_API_KEY: 'test_social', SOCIAL_BASE_URL: `${world.url}/social`,
    NEWS_API_KEY: 'test_news', NEWS_BASE_URL: `${world.url}/news`,
    PROVIDER_TIMEOUT_MS: '2000',
    ...env,
  });
}
