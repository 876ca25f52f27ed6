import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, envVar, parseEnv, type Env } from '../../lib/env.ts';

export const DASHBOARD_MODES = ['dist', 'dev', 'off'] as const;
/** Where a trace's id goes in TRACE_UI_URL. */
export const TRACE_ID_PLACEHOLDER = '{trace_id}';
export const DASHBOARD_ROOT = join(import.meta.dirname, '..', '..', 'dashboard');
export const DASHBOARD_DIST = join(DASHBOARD_ROOT, 'dist');

const ZDashboardEnv = z.object({
  /** The address users reach the app at; links in e-mails and the origin check use it. */
  PUBLIC_URL: envVar.url(['http', 'https']).optional(),
  /** Signs session cookies. Only development runs without one. */
  AUTH_SECRET: z.string().min(32).describe('at least 32 characters (e.g. `openssl rand -base64 48`)').optional(),
  /** Behind a proxy: the header it puts the client's address in (e.g. x-real-ip); unset reads the socket. */
  AUTH_CLIENT_IP_HEADER: z.string().regex(/^[a-z0-9-]+$/i).describe('an HTTP header name, e.g. x-real-ip').optional(),
  /**
   * `dist` serves dashboard/dist (built by `npm run build`), `dev` runs Vite with hot reload, `off` serves no
   * pages (the JSON API stays). Unset: `dist` when it has been built, else `off`.
   */
  DASHBOARD_MODE: envVar.oneOf(DASHBOARD_MODES).optional(),
  /**
   * A job's trace in the trace store's UI, `{trace_id}` where its id goes (Jaeger:
   * `http://jaeger:16686/trace/{trace_id}`): a job's page links to its trace. Unset: no link.
   */
  TRACE_UI_URL: z
    .string()
    .trim()
    .refine((value) => value.includes(TRACE_ID_PLACEHOLDER) && isHttpUrl(value.replaceAll(TRACE_ID_PLACEHOLDER, '0')))
    .describe(`an http(s) URL with ${TRACE_ID_PLACEHOLDER} where the trace id goes, e.g. http://localhost:16686/trace/${TRACE_ID_PLACEHOLDER}`)
    .optional(),
  NODE_ENV: z.string().optional(),
});

export interface DashboardConfig {
  publicUrl: string;
  authSecret: string;
  clientIpHeader: string | null;
  mode: (typeof DASHBOARD_MODES)[number];
  /** TRACE_UI_URL: a trace's address with `{trace_id}` in it, or null (no trace links). */
  traceUrl: string | null;
}

const DEVELOPMENT_SECRET = 'development-only-secret-never-used-in-production';

/** `listenUrl` is where the API listens; it is the public address unless PUBLIC_URL says otherwise. */
export function loadDashboardConfig(env: Env, listenUrl: string): DashboardConfig {
  const e = parseEnv(ZDashboardEnv, env);
  if (!e.AUTH_SECRET && e.NODE_ENV === 'production') throw new ConfigError(['AUTH_SECRET is not set: expected at least 32 characters (required when NODE_ENV=production)']);
  const mode = e.DASHBOARD_MODE ?? (isDashboardBuilt() ? 'dist' : 'off');
  if (mode === 'dist' && !isDashboardBuilt()) throw new ConfigError(['DASHBOARD_MODE=dist but dashboard/dist is missing: run `npm run build`, or set DASHBOARD_MODE=dev']);
  return {
    publicUrl: (e.PUBLIC_URL ?? listenUrl).replace(/\/+$/, ''),
    authSecret: e.AUTH_SECRET ?? DEVELOPMENT_SECRET,
    clientIpHeader: e.AUTH_CLIENT_IP_HEADER?.toLowerCase() ?? null,
    mode,
    traceUrl: e.TRACE_UI_URL ?? null,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const isDashboardBuilt = () => existsSync(join(DASHBOARD_DIST, 'index.html'));
