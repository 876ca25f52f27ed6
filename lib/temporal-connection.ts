import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError, type Env } from './env.ts';

/** Without an address anywhere: the Temporal CLI's dev server on this machine (`npm run dev`). */
const LOCAL_ADDRESS = '127.0.0.1:7233';
const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

/**
 * How to reach Temporal, shared by the API's Client, every Worker's
 * NativeConnection and the admin commands: both take these options as they are.
 */
export interface TemporalConnectionSettings {
  address: string;
  namespace: string;
  /** False or absent: plain gRPC (the dev server). */
  tls?: TLSConfig | boolean;
  /** Temporal Cloud's API key (sent as a bearer token; turns TLS on). */
  apiKey?: string;
  metadata?: Record<string, string>;
  /** For logs and messages: the address, the namespace and how it authenticates, never a secret. */
  describe(): string;
}

/**
 * Reads the connection the way every Temporal SDK and the CLI do
 * (@temporalio/envconfig): a profile of `temporal.toml` (TEMPORAL_CONFIG_FILE,
 * TEMPORAL_PROFILE) with TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * TEMPORAL_API_KEY and TEMPORAL_TLS_* over it (docs/configuration.md#temporal).
 * The library requires nothing, so what it gives is checked here: a bad
 * address or an unreadable certificate stops start-up with one line.
 */
export function loadTemporalConnection(env: Env): TemporalConnectionSettings {
  const variables = Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim() !== ''));
  let loaded: ReturnType<typeof loadClientConnectConfig>;
  try {
    loaded = loadClientConnectConfig({ overrideEnvVars: variables, ...(variables.TEMPORAL_PROFILE ? { profile: variables.TEMPORAL_PROFILE } : {}) });
  } catch (error) {
    throw new ConfigError([`TEMPORAL_*: the Temporal connection cannot be read: ${(error as Error).message}`]);
  }
  const { address = LOCAL_ADDRESS, apiKey, tls: loadedTls, metadata: loadedMetadata } = loaded.connectionOptions;
  const tls = loadedTls ?? undefined;
  // gRPC metadata from TEMPORAL_GRPC_META_* and the profile: text values only.
  const metadata = loadedMetadata ? Object.fromEntries(Object.entries(loadedMetadata).map(([name, value]) => [name, String(value)])) : undefined;
  if (!HOST_PORT.test(address)) throw new ConfigError([`TEMPORAL_ADDRESS: "${address}" is not host:port`]);
  const namespace = loaded.namespace ?? 'default';
  const authentication = apiKey ? 'API key over TLS' : typeof tls === 'object' && tls.clientCertPair ? 'mTLS' : tls ? 'TLS' : 'plain';
  return {
    address,
    namespace,
    ...(tls !== undefined ? { tls } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
    describe: () => `${address}, namespace ${namespace}, ${authentication}`,
  };
}

/** The options a Connection or NativeConnection takes, from the settings (no secret leaves them otherwise). */
export function connectionOptions(settings: TemporalConnectionSettings): { address: string; tls?: TLSConfig | boolean; apiKey?: string; metadata?: Record<string, string> } {
  const { address, tls, apiKey, metadata } = settings;
  return { address, ...(tls !== undefined ? { tls } : {}), ...(apiKey ? { apiKey } : {}), ...(metadata ? { metadata } : {}) };
}

/** How long a process waits for Temporal at start before it says why it cannot reach it. */
export const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects at start-up, or stops with one line saying where and why: a wrong
 * or missing client certificate, an untrusted server, a refused API key or an
 * address nobody answers at (a ConfigError, which the entry points print).
 */
export async function connectAtStart<T>(settings: TemporalConnectionSettings, connect: () => Promise<T>): Promise<T> {
  try {
    return await connect();
  } catch (error) {
    const reason = ((error as Error).message || String(error)).split('\n')[0]!.trim();
    throw new ConfigError([`TEMPORAL_ADDRESS: cannot connect to Temporal at ${settings.describe()}: ${reason}`]);
  }
}
