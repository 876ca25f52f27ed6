import { z } from 'zod';
import { ConfigError, envVar, parseEnv, type Env } from '../../lib/env.ts';

/**
 * The scopes the app asks for (HubSpot: developers.hubspot.com/docs/apps/legacy-apps/authentication/scopes):
 * read and write contacts (notes need only these), and create the app's own contact properties.
 * A real app must tick the same scopes in its settings.
 */
export const HUBSPOT_SCOPES = ['oauth', 'crm.objects.contacts.read', 'crm.objects.contacts.write', 'crm.schemas.contacts.read', 'crm.schemas.contacts.write'];

// Blank values count as unset. Without a client id and secret the CRM pages say the integration is not configured.
const ZHubSpotEnv = z.object({
  HUBSPOT_CLIENT_ID: envVar.text().optional(),
  HUBSPOT_CLIENT_SECRET: envVar.text().optional(),
  /** The REST API (and OAuth token endpoints): https://api.hubapi.com, or any HubSpot-compatible server. */
  HUBSPOT_API_BASE: envVar.url(['http', 'https']).default('https://api.hubapi.com'),
  /** Where the consent page lives (`<base>/oauth/authorize`): https://app.hubspot.com. */
  HUBSPOT_OAUTH_BASE: envVar.url(['http', 'https']).default('https://app.hubspot.com'),
  /** Where contact records are shown (`<base>/contacts/<portal>/record/0-1/<id>`). */
  HUBSPOT_APP_BASE: envVar.url(['http', 'https']).default('https://app.hubspot.com'),
  /** Per-portal budget below HubSpot's documented limits (110 per 10 s; search 5 per second). */
  HUBSPOT_MAX_CALLS_PER_10S: envVar.int({ min: 1 }).default(100),
  HUBSPOT_MAX_SEARCHES_PER_SECOND: envVar.int({ min: 1 }).default(4),
});

export interface HubSpotConfig {
  clientId: string;
  clientSecret: string;
  apiBase: string;
  oauthBase: string;
  appBase: string;
  scopes: string[];
  limits: { callsPer10s: number; searchesPerSecond: number };
}

/** Null when no HubSpot app is configured; a ConfigError when half of one is. */
export function loadHubSpotConfig(env: Env = process.env): HubSpotConfig | null {
  const e = parseEnv(ZHubSpotEnv, env);
  if (e.HUBSPOT_CLIENT_ID === undefined && e.HUBSPOT_CLIENT_SECRET === undefined) return null;
  if (e.HUBSPOT_CLIENT_ID === undefined || e.HUBSPOT_CLIENT_SECRET === undefined) throw new ConfigError(['HUBSPOT_CLIENT_ID and HUBSPOT_CLIENT_SECRET are set together or not at all']);
  return {
    clientId: e.HUBSPOT_CLIENT_ID,
    clientSecret: e.HUBSPOT_CLIENT_SECRET,
    apiBase: e.HUBSPOT_API_BASE.replace(/\/+$/, ''),
    oauthBase: e.HUBSPOT_OAUTH_BASE.replace(/\/+$/, ''),
    appBase: e.HUBSPOT_APP_BASE.replace(/\/+$/, ''),
    scopes: HUBSPOT_SCOPES,
    limits: { callsPer10s: e.HUBSPOT_MAX_CALLS_PER_10S, searchesPerSecond: e.HUBSPOT_MAX_SEARCHES_PER_SECOND },
  };
}
