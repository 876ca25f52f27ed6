// The environment `npm run dev` gives the processes it starts. Whatever it
// sets is only a default: a variable exported in the environment wins, then
// one from `.env` (loadDotEnv fills only what the environment leaves unset),
// then dev's own value (docs/configuration.md).
import { withoutBlanks, type Env } from '../../lib/env.ts';

/** The worker's probes and /metrics under `npm run dev` (one port per role, counting up from it). */
export const DEV_WORKER_METRICS_PORT = 9464;

/** What dev sets before any service runs; the dashboard with hot reload from dashboard/src. */
export const DEV_DEFAULTS: Readonly<Record<string, string>> = {
  DASHBOARD_MODE: 'dev',
  WORKER_METRICS_PORT: String(DEV_WORKER_METRICS_PORT),
};

/**
 * `env` (the environment, `.env` merged in) over what dev provides (`provided`:
 * the addresses of the services it started, the stand-ins' settings such as
 * ALLOW_PRIVATE_HOSTS, the API's port) over DEV_DEFAULTS. A blank
 * value (`export SMTP_HOST=`) counts as unset, as everywhere.
 */
export function devEnvironment(env: Env, provided: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { ...DEV_DEFAULTS, ...provided, ...(withoutBlanks(env) as Record<string, string>) };
}
