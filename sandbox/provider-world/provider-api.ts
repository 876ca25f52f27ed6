import type { IncomingMessage } from 'node:http';
import type { EndpointName } from './faults.ts';
import type { World } from './world.ts';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string | string[]>;
  /** Non-JSON bodies (web pages). */
  text?: string;
}

export interface RequestContext {
  method: string;
  url: URL;
  /** Parsed JSON body of POST requests (or `{}`). */
  body: Record<string, unknown>;
  world: World;
  /** Base URL of this server, so sandbox data can link back to it. */
  baseUrl: string;
  plans: ProviderPlans;
}

/** What the simulated accounts' plans allow. */
export interface ProviderPlans {
  /** NewsAPI: how far back `from` may reach (Developer one month; null: no limit, as on long-history plans). */
  newsHistoryDays: number | null;
}

export type KeyStatus = 'missing' | 'bad' | 'exhausted' | 'ok';
export type FaultReplyKind = 'rate_limit' | 'server_error' | 'unavailable';

/** One simulated provider: its routes, how it authenticates and how it says "no". */
export interface ProviderApi {
  prefix: string;
  endpointFor(method: string, path: string): EndpointName | null;
  apiKey(req: IncomingMessage, url: URL): string | null;
  authFailure(status: Exclude<KeyStatus, 'ok'>): Reply;
  fault(kind: FaultReplyKind, retryAfterSeconds: number): Reply;
  handle(endpoint: EndpointName, context: RequestContext): Reply;
}

/** Any key is valid except the documented test prefixes. */
export function keyStatus(key: string | null): KeyStatus {
  if (!key) return 'missing';
  if (key.startsWith('bad_')) return 'bad';
  if (key.startsWith('exhausted_')) return 'exhausted';
  return 'ok';
}

export function header(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A request parameter from the JSON body or, as the real APIs also accept, the query string. */
export function param(context: RequestContext, name: string): string | undefined {
  return str(context.body[name]) ?? str(context.url.searchParams.get(name));
}
