import { ConfigError } from '../../lib/env.ts';

export interface WebhookConfig {
  /** AES-256-GCM key the endpoints' signing secrets are encrypted with at rest. */
  secretKey: Buffer;
  /**
   * Hosts a delivery may reach although they resolve to a private or loopback
   * address. DEVELOPMENT AND TESTS ONLY: empty unless WEBHOOK_ALLOW_PRIVATE_HOSTS
   * is set (`npm run dev` and the test setup set it to the sandbox receiver's
   * `127.0.0.1`); such hosts may also use plain http. Never set in production.
   */
  allowedPrivateHosts: ReadonlySet<string>;
}

/** A fixed key for development; production must say its own (WEBHOOK_SECRET_KEY). */
const DEVELOPMENT_KEY = Buffer.alloc(32, 11);

export function loadWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  const rawKey = env.WEBHOOK_SECRET_KEY?.trim();
  let secretKey = DEVELOPMENT_KEY;
  if (rawKey) {
    secretKey = Buffer.from(rawKey, 'base64');
    if (secretKey.length !== 32) throw new ConfigError(['WEBHOOK_SECRET_KEY: expected 32 random bytes in base64 (openssl rand -base64 32)']);
  } else if (env.NODE_ENV === 'production') {
    throw new ConfigError(['WEBHOOK_SECRET_KEY is not set: expected 32 random bytes in base64 (openssl rand -base64 32) to encrypt webhook secrets']);
  }
  const hosts = (env.WEBHOOK_ALLOW_PRIVATE_HOSTS ?? '').split(',').map((host) => host.trim().toLowerCase()).filter(Boolean);
  if (hosts.length > 0 && env.NODE_ENV === 'production') throw new ConfigError(['WEBHOOK_ALLOW_PRIVATE_HOSTS is for development and tests only']);
  return { secretKey, allowedPrivateHosts: new Set(hosts) };
}
