// The CRM integration's configuration: what every CRM shares (the key CRM
// tokens are encrypted with, whom chat webhooks may reach) and each CRM's own app,
// configured or not. An account connects one of the configured CRMs.
import { z } from 'zod';
import { ConfigError, envVar, parseEnv, type Env } from '../../lib/env.ts';
import { loadHubSpotConfig, type HubSpotConfig } from '../hubspot/config.ts';
import { loadPipedriveConfig, type PipedriveConfig } from '../pipedrive/config.ts';
import { loadSalesforceConfig, type SalesforceConfig } from '../salesforce/config.ts';
import { loadOutboundPolicy, type OutboundPolicy } from '../web/outbound-guard.ts';
import { CRM_PROVIDERS, type CrmProvider } from './adapter.ts';

const ZCrmEnv = z.object({
  /** 32 bytes, base64: the AES-256-GCM key CRM tokens are encrypted with at rest. */
  CRM_TOKEN_KEY: z
    .string()
    .trim()
    .refine((value) => Buffer.from(value, 'base64').length === 32, 'not 32 bytes')
    .describe('32 random bytes in base64 (openssl rand -base64 32)')
    .optional(),
});

export interface CrmConfig {
  tokenKey: Buffer;
  /** Whom chat webhooks may reach: public addresses over https, and the development allow-list (ALLOW_PRIVATE_HOSTS). */
  outbound: OutboundPolicy;
  hubspot: HubSpotConfig | null;
  pipedrive: PipedriveConfig | null;
  salesforce: SalesforceConfig | null;
}

/** The CRMs with an app configured on this server, in the order the CRM page offers them. */
export const configuredProviders = (config: CrmConfig): CrmProvider[] => CRM_PROVIDERS.filter((provider) => config[provider] !== null);

const isLoopback = (url: string) => /^http:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url);

/** Null when no CRM app is configured; a ConfigError when one is half configured, or CRM_TOKEN_KEY is missing for a real CRM. */
export function loadCrmConfig(env: Env = process.env): CrmConfig | null {
  const e = parseEnv(ZCrmEnv, env);
  const hubspot = loadHubSpotConfig(env);
  const pipedrive = loadPipedriveConfig(env);
  const salesforce = loadSalesforceConfig(env);
  if (!hubspot && !pipedrive && !salesforce) return null;
  const bases = [...(hubspot ? [hubspot.apiBase] : []), ...(pipedrive ? [pipedrive.oauthBase] : []), ...(salesforce ? [salesforce.loginBase] : [])];
  // Local stand-ins get a fixed development key; a real CRM needs one of its own.
  if (e.CRM_TOKEN_KEY === undefined && !bases.every(isLoopback)) {
    throw new ConfigError(['CRM_TOKEN_KEY is not set: expected 32 random bytes in base64 (openssl rand -base64 32) to encrypt CRM tokens']);
  }
  return {
    tokenKey: e.CRM_TOKEN_KEY !== undefined ? Buffer.from(e.CRM_TOKEN_KEY, 'base64') : Buffer.alloc(32, 7),
    outbound: loadOutboundPolicy(env),
    hubspot,
    pipedrive,
    salesforce,
  };
}
