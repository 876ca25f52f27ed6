import { ConfigError } from '../../lib/env.ts';
import { loadOutboundPolicy } from '../web/outbound-guard.ts';

export interface WebhookConfig {
  /** AES-256-GCM key the endpoints' signing secrets are encrypted with at rest. */
  secretKey: Buffer;
  /**
   * Hosts a delivery may reach although they resolve to a private or loopback
   * address: the outbound guard's development allow-list (ALLOW_PRIVATE_HOSTS,
   * integrations/web/outbound-guard.ts); such hosts may also use plain http.
   * Empty, and refused, in production.
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
  return { secretKey, allowedPrivateHosts: loadOutboundPolicy(env).allowedPrivateHosts };
}
