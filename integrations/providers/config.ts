import { z } from 'zod';
import { envVar, parseEnv } from '../../lib/env.ts';
import { loadOutboundPolicy, type OutboundPolicy } from '../web/outbound-guard.ts';

export type ProviderId = 'pdl' | 'apollo' | 'social' | 'news';

export interface ProviderEndpoint {
  baseUrl: string;
  apiKey: string;
  /** Label of the data's origin in `_meta`: the provider, or `sandbox` for the local stand-in. */
  source: string;
}

export interface ProviderConfig {
  pdl: ProviderEndpoint | null;
  apollo: ProviderEndpoint | null;
  social: ProviderEndpoint | null;
  news: ProviderEndpoint | null;
  timeoutMs: number;
  /**
   * How many days back the news provider's plan lets `from` reach (NewsAPI:
   * Developer one month, paid plans years). Default 365: the spec's 12-month
   * ceiling, which also caps a larger value.
   */
  newsHistoryDays: number;
  /**
   * Where company websites are fetched from in development and tests: every
   * host `h` is read at `<url>/h/…` (the provider world's site stand-in). Null
   * in production: a website is fetched at its own address. Data keeps the
   * real address either way.
   */
  websiteStandInUrl: string | null;
  /** Base URL of the local provider stand-in, when in use. */
  sandboxUrl: string | null;
  /** Which private hosts technology detection may reach: only those ALLOW_PRIVATE_HOSTS names (development and tests). */
  outboundPolicy: OutboundPolicy;
}

// Blank values count as unset (lib/env.ts parseEnv).
const optionalText = envVar.text().optional();
const optionalUrl = envVar.url(['http', 'https']).optional();

const ZProviderEnv = z.object({
  PDL_API_KEY: optionalText,
  PDL_BASE_URL: optionalUrl,
  APOLLO_API_KEY: optionalText,
  APOLLO_BASE_URL: optionalUrl,
  SOCIAL_API_KEY: optionalText,
  SOCIAL_BASE_URL: optionalUrl,
  NEWS_API_KEY: optionalText,
  NEWS_BASE_URL: optionalUrl,
  PROVIDER_SANDBOX_URL: optionalUrl,
  PROVIDER_TIMEOUT_MS: envVar.int({ min: 100, max: 120_000 }).default(10_000),
  NEWS_HISTORY_DAYS: envVar.int({ min: 1, max: 3_650 }).default(365),
  WEBSITE_STAND_IN_URL: optionalUrl,
});

// The providers' documented API hosts (docs/providers.md#the-data-providers).
const DEFAULT_BASE_URLS: Record<ProviderId, string> = {
  pdl: 'https://api.peopledatalabs.com',
  apollo: 'https://api.apollo.io',
  social: 'https://api.socialfetch.dev',
  news: 'https://newsapi.org',
};

/** Any key is valid on the sandbox; this one only marks where it came from. */
export const SANDBOX_API_KEY = 'sandbox_key';

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Parses provider settings once at start-up. A provider with its own key uses
 * its own (or default) base URL; without a key it falls back to the sandbox
 * when `PROVIDER_SANDBOX_URL` is set, else it is left out of the waterfall.
 */
export function createProviderConfig(env: Record<string, string | undefined>): ProviderConfig {
  const parsed = parseEnv(ZProviderEnv, env);
  const sandbox = parsed.PROVIDER_SANDBOX_URL ? trimSlash(parsed.PROVIDER_SANDBOX_URL) : undefined;
  const endpoint = (id: ProviderId, apiKey: string | undefined, baseUrl: string | undefined): ProviderEndpoint | null => {
    const realBase = baseUrl ?? DEFAULT_BASE_URLS[id];
    if (apiKey && realBase) {
      const isSandbox = sandbox !== undefined && trimSlash(realBase).startsWith(sandbox);
      return { baseUrl: trimSlash(realBase), apiKey, source: isSandbox ? 'sandbox' : id };
    }
    if (sandbox && !baseUrl && !apiKey) return { baseUrl: `${sandbox}/${id}`, apiKey: SANDBOX_API_KEY, source: 'sandbox' };
    return null;
  };
  return {
    pdl: endpoint('pdl', parsed.PDL_API_KEY, parsed.PDL_BASE_URL),
    apollo: endpoint('apollo', parsed.APOLLO_API_KEY, parsed.APOLLO_BASE_URL),
    social: endpoint('social', parsed.SOCIAL_API_KEY, parsed.SOCIAL_BASE_URL),
    news: endpoint('news', parsed.NEWS_API_KEY, parsed.NEWS_BASE_URL),
    timeoutMs: parsed.PROVIDER_TIMEOUT_MS,
    newsHistoryDays: parsed.NEWS_HISTORY_DAYS,
    websiteStandInUrl: parsed.WEBSITE_STAND_IN_URL ? trimSlash(parsed.WEBSITE_STAND_IN_URL) : sandbox ? `${sandbox}/sites` : null,
    sandboxUrl: sandbox ?? null,
    outboundPolicy: loadOutboundPolicy(env),
  };
}
