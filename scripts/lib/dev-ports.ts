// Every port `npm run dev` uses, each moved by its own variable (.env.example
// lists them), so that two checkouts can run side by side.
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { envVar, parseEnv, type Env } from '../../lib/env.ts';
import { SANDBOXES } from './sandboxes.ts';

export const CORE_PORTS = {
  api: { variable: 'PORT', defaultPort: 3000 },
  postgres: { variable: 'DEV_POSTGRES_PORT', defaultPort: 54329 },
  temporal: { variable: 'DEV_TEMPORAL_PORT', defaultPort: 7233 },
  temporalUi: { variable: 'DEV_TEMPORAL_UI_PORT', defaultPort: 8233 },
} as const;

export interface DevPorts {
  api: number;
  postgres: number;
  temporal: number;
  temporalUi: number;
  /** Sandbox ports by their key (scripts/lib/sandboxes.ts). */
  sandboxes: Record<string, number>;
  /** The variable behind each port number, for messages. */
  variableOf(port: number): string;
}

/**
 * Where `npm run dev` keeps its services' data (DEV_DATA_DIR, relative to the
 * checkout; `.data` by default): a second stack in the same checkout needs its
 * own, besides its own ports.
 */
export function readDevDataDir(env: Env, root: string): string {
  const { DEV_DATA_DIR: dir } = parseEnv(z.object({ DEV_DATA_DIR: envVar.text().optional() }), env);
  if (dir === undefined) return join(root, '.data');
  return isAbsolute(dir) ? dir : resolve(root, dir);
}

/** Reads the ports from the environment; a bad value is a ConfigError naming its variable. */
export function readDevPorts(env: Env): DevPorts {
  const entries = [...Object.values(CORE_PORTS), ...SANDBOXES.flatMap((sandbox) => sandbox.ports)];
  const shape = Object.fromEntries(entries.map(({ variable, defaultPort }) => [variable, envVar.int({ min: 1, max: 65535 }).default(defaultPort)]));
  const values = parseEnv(z.object(shape), env) as Record<string, number>;
  const sandboxes = Object.fromEntries(SANDBOXES.flatMap((sandbox) => sandbox.ports.map(({ key, variable }) => [key, values[variable]])));
  const byPort = new Map(entries.map(({ variable }) => [values[variable], variable]));
  return {
    api: values[CORE_PORTS.api.variable],
    postgres: values[CORE_PORTS.postgres.variable],
    temporal: values[CORE_PORTS.temporal.variable],
    temporalUi: values[CORE_PORTS.temporalUi.variable],
    sandboxes,
    variableOf: (port) => byPort.get(port) ?? 'its variable',
  };
}
