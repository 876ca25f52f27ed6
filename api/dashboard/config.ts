import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const DASHBOARD_MODES = ['dist', 'dev', 'off'] as const;

// Blank values count as unset, so a copied `.env.example` never sets one to ''.
const blankAsUnset = (value: unknown) => (value === '' ? undefined : value);

const ZDashboardEnv = z.object({
  /** The address users reach the app at; links in e-mails and the origin check use it. */
  PUBLIC_URL: z.preprocess(blankAsUnset, z.url({ protocol: /^https?$/ }).optional()),
  /** Signs session cookies; at least 32 characters. Only development runs without one. */
  AUTH_SECRET: z.preprocess(blankAsUnset, z.string().min(32, 'AUTH_SECRET needs at least 32 characters').optional()),
  /** Behind a proxy: the header it puts the client's address in (e.g. x-real-ip); unset reads the socket. */
  AUTH_CLIENT_IP_HEADER: z.preprocess(blankAsUnset, z.string().regex(/^[a-z0-9-]+$/i).optional()),
  /**
   * `dist` serves dashboard/dist (built by `npm run build`), `dev` runs Vite with hot reload, `off` serves no
   * pages (the JSON API stays). Unset: `dist` when it has been built, else `off`.
   */
  DASHBOARD_MODE: z.preprocess(blankAsUnset, z.enum(DASHBOARD_MODES).optional()),
  NODE_ENV: z.string().optional(),
});

export interface DashboardConfig {
  publicUrl: string;
  authSecret: string;
  clientIpHeader: string | null;
  mode: (typeof DASHBOARD_MODES)[number];
}

const DEVELOPMENT_SECRET = 'development-only-secret-never-used-in-production';

/** `listenUrl` is where the API listens; it is the public address unless PUBLIC_URL says otherwise. */
export function loadDashboardConfig(env: NodeJS.ProcessEnv, listenUrl: string): DashboardConfig {
  const parsed = ZDashboardEnv.safeParse(env);
  if (!parsed.success) {
    const problem = parsed.error.issues[0]!;
    throw new Error(`Invalid configuration: ${problem.path.join('.')}: ${problem.message}`);
  }
  const e = parsed.data;
  if (!e.AUTH_SECRET && e.NODE_ENV === 'production') throw new Error('Invalid configuration: AUTH_SECRET is required in production');
  return {
    publicUrl: (e.PUBLIC_URL ?? listenUrl).replace(/\/+$/, ''),
    authSecret: e.AUTH_SECRET ?? DEVELOPMENT_SECRET,
    clientIpHeader: e.AUTH_CLIENT_IP_HEADER?.toLowerCase() ?? null,
    mode: e.DASHBOARD_MODE ?? (isDashboardBuilt() ? 'dist' : 'off'),
  };
}

export const DASHBOARD_ROOT = join(import.meta.dirname, '..', '..', 'dashboard');
export const DASHBOARD_DIST = join(DASHBOARD_ROOT, 'dist');
const isDashboardBuilt = () => existsSync(join(DASHBOARD_DIST, 'index.html'));
