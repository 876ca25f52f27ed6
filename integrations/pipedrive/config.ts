import { z } from 'zod';
import { ConfigError, envVar, parseEnv, type Env } from '../../lib/env.ts';

/**
 * What the app needs (docs/crm-pipedrive.md#what-the-app-asks-for): a
 * Pipedrive Marketplace app ticks its scopes in the Developer Hub, not in the
 * consent URL (pipedrive.readme.io/docs/marketplace-scopes-and-permission-explanations).
 * `base` reads the connecting user (GET /v1/users/me); `contacts:full` reads
 * and writes persons, their notes and filters; `admin` creates the product's
 * person fields (POST /v1/personFields is `admin` only in Pipedrive's OpenAPI).
 */
export const PIPEDRIVE_SCOPES = ['base', 'contacts:full', 'admin'];

// Blank values count as unset. Without a client id and secret the CRM pages say Pipedrive is not configured.
const ZPipedriveEnv = z.object({
  PIPEDRIVE_CLIENT_ID: envVar.text().optional(),
  PIPEDRIVE_CLIENT_SECRET: envVar.text().optional(),
  /** Consent page and token endpoints: https://oauth.pipedrive.com. */
  PIPEDRIVE_OAUTH_BASE: envVar.url(['http', 'https']).default('https://oauth.pipedrive.com'),
  /** API calls when a connection has no `api_domain` of its own (every grant names one). */
  PIPEDRIVE_API_BASE: envVar.url(['http', 'https']).default('https://api.pipedrive.com'),
  /** Calls per 2-second window per access token, below the smallest OAuth plan's 80. */
  PIPEDRIVE_MAX_CALLS_PER_2S: envVar.int({ min: 1 }).default(70),
  /** Percent of the company's daily token budget left for its own people and other apps: we stop when less remains. */
  PIPEDRIVE_DAILY_TOKEN_RESERVE_PERCENT: envVar.int({ min: 0, max: 95 }).default(30),
  /** Persons a candidate search reads at most (pages of 100) before sorting them by score. */
  PIPEDRIVE_CANDIDATE_SCAN_LIMIT: envVar.int({ min: 100, max: 5000 }).default(500),
});

export interface PipedriveConfig {
  clientId: string;
  clientSecret: string;
  oauthBase: string;
  apiBase: string;
  scopes: string[];
  limits: { callsPer2s: number; dailyReservePercent: number; candidateScanLimit: number };
}

/** Null when no Pipedrive app is configured; a ConfigError when half of one is. */
export function loadPipedriveConfig(env: Env = process.env): PipedriveConfig | null {
  const e = parseEnv(ZPipedriveEnv, env);
  if (e.PIPEDRIVE_CLIENT_ID === undefined && e.PIPEDRIVE_CLIENT_SECRET === undefined) return null;
  if (e.PIPEDRIVE_CLIENT_ID === undefined || e.PIPEDRIVE_CLIENT_SECRET === undefined) {
    throw new ConfigError(['PIPEDRIVE_CLIENT_ID and PIPEDRIVE_CLIENT_SECRET are set together or not at all']);
  }
  return {
    clientId: e.PIPEDRIVE_CLIENT_ID,
    clientSecret: e.PIPEDRIVE_CLIENT_SECRET,
    oauthBase: e.PIPEDRIVE_OAUTH_BASE.replace(/\/+$/, ''),
    apiBase: e.PIPEDRIVE_API_BASE.replace(/\/+$/, ''),
    scopes: PIPEDRIVE_SCOPES,
    limits: {
      callsPer2s: e.PIPEDRIVE_MAX_CALLS_PER_2S,
      dailyReservePercent: e.PIPEDRIVE_DAILY_TOKEN_RESERVE_PERCENT,
      candidateScanLimit: e.PIPEDRIVE_CANDIDATE_SCAN_LIMIT,
    },
  };
}
