import { z } from 'zod';
import type { BudgetWindow } from '../crm/adapter.ts';
import { ConfigError, envVar, parseEnv, type Env } from '../../lib/env.ts';

/**
 * The scopes the app asks for (help.salesforce.com "OAuth Tokens and
 * Scopes"): `api` (REST API access to the user's data) and `refresh_token`
 * (a refresh token, to work while nobody is signed in). The External Client
 * App must allow the same scopes.
 */
export const SALESFORCE_SCOPES = ['api', 'refresh_token'];

/**
 * Salesforce has no lead score field on Contacts or Leads of its own (Einstein
 * Lead Scoring is an add-on): the user picks a number field, and a run
 * refuses to start until one is picked.
 */
export const SALESFORCE_DEFAULT_SCORE_FIELD: string | null = null;

// Blank values count as unset. Without a client id and secret the CRM pages say the integration is not configured.
const ZSalesforceEnv = z.object({
  SALESFORCE_CLIENT_ID: envVar.text().optional(),
  SALESFORCE_CLIENT_SECRET: envVar.text().optional(),
  /** Where consent and tokens live: https://login.salesforce.com (sandbox orgs: https://test.salesforce.com, or a My Domain). */
  SALESFORCE_LOGIN_BASE: envVar.url(['http', 'https']).default('https://login.salesforce.com'),
  /** The REST API version calls use (`/services/data/v62.0/…`). */
  SALESFORCE_API_VERSION: z.string().trim().regex(/^\d{2}\.0$/).describe('an API version such as 62.0').default('62.0'),
  /** Share of the org's 24-hour API allowance kept for the org's own use: no calls once usage passes the rest. */
  SALESFORCE_API_RESERVE_PERCENT: envVar.int({ min: 0, max: 90 }).default(20),
  /** How long every process holds off once the allowance (less the reserve) is used, in minutes (the window is a rolling 24 hours). */
  SALESFORCE_API_HOLD_OFF_MINUTES: envVar.int({ min: 1 }).default(60),
  /** Calls per second per org: pacing, so that a run does not spend the allowance in bursts. */
  SALESFORCE_MAX_CALLS_PER_SECOND: envVar.int({ min: 1 }).default(10),
  /** The org's session timeout: a token answer says no lifetime, so this is when a token counts as expired (Setup → Session Settings; 2 hours by default). */
  SALESFORCE_SESSION_MINUTES: envVar.int({ min: 15 }).default(120),
});

export interface SalesforceConfig {
  clientId: string;
  clientSecret: string;
  loginBase: string;
  apiVersion: string;
  scopes: string[];
  sessionMs: number;
  limits: { reservePercent: number; holdOffMs: number; callsPerSecond: number };
}

/** Null when no Salesforce app is configured; a ConfigError when half of one is. */
export function loadSalesforceConfig(env: Env = process.env): SalesforceConfig | null {
  const e = parseEnv(ZSalesforceEnv, env);
  if (e.SALESFORCE_CLIENT_ID === undefined && e.SALESFORCE_CLIENT_SECRET === undefined) return null;
  if (e.SALESFORCE_CLIENT_ID === undefined || e.SALESFORCE_CLIENT_SECRET === undefined) throw new ConfigError(['SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET are set together or not at all']);
  return {
    clientId: e.SALESFORCE_CLIENT_ID,
    clientSecret: e.SALESFORCE_CLIENT_SECRET,
    loginBase: e.SALESFORCE_LOGIN_BASE.replace(/\/+$/, ''),
    apiVersion: e.SALESFORCE_API_VERSION,
    scopes: SALESFORCE_SCOPES,
    sessionMs: e.SALESFORCE_SESSION_MINUTES * 60_000,
    limits: { reservePercent: e.SALESFORCE_API_RESERVE_PERCENT, holdOffMs: e.SALESFORCE_API_HOLD_OFF_MINUTES * 60_000, callsPerSecond: e.SALESFORCE_MAX_CALLS_PER_SECOND },
  };
}

/**
 * The budget's windows by call kind (docs/crm-salesforce.md#limits-we-keep).
 * Salesforce's own limits are an allowance per 24 hours (read from each
 * answer's Sforce-Limit-Info and held off near its end) and 25 concurrent
 * requests that run 20 seconds or more; the one window here paces calls.
 */
export const SALESFORCE_BUDGET_WINDOWS: Record<string, BudgetWindow> = { api: { windowMs: 1_000, max: 10 } };

export const salesforceBudgetWindows = (config: SalesforceConfig): Record<string, BudgetWindow> => ({ api: { windowMs: 1_000, max: config.limits.callsPerSecond } });
