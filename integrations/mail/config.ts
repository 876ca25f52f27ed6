import { z } from 'zod';
import { ConfigError, envVar, parseEnv, type Env } from '../../lib/env.ts';

/** Where the SMTP stand-in listens in local development (`npm run dev` starts it). */
export const DEFAULT_MAIL_SANDBOX_SMTP_PORT = 4025;
/** Its web inbox and JSON list of messages. */
export const DEFAULT_MAIL_SANDBOX_HTTP_PORT = 4310;

// Blank values count as unset (lib/env.ts): the defaults point at the local stand-in.
const ZMailEnv = z.object({
  SMTP_HOST: envVar.text().default('127.0.0.1'),
  SMTP_PORT: envVar.int({ min: 1, max: 65535 }).default(DEFAULT_MAIL_SANDBOX_SMTP_PORT),
  /** `true` for implicit TLS (port 465); `false` upgrades with STARTTLS when the server offers it. */
  SMTP_SECURE: envVar.boolean().default(false),
  SMTP_USER: envVar.text().optional(),
  SMTP_PASSWORD: z.string().min(1).describe('a non-empty text').optional(),
  MAIL_FROM: envVar.text().default('Prospect Enrichment <no-reply@prospect-enrichment.localhost>'),
});

export interface MailConfig {
  host: string;
  port: number;
  isSecure: boolean;
  /** Both or neither: an SMTP server either wants AUTH or does not. */
  auth: { user: string; pass: string } | null;
  from: string;
}

/** Parses the SMTP settings once at start-up; a ConfigError names every bad variable. */
export function loadMailConfig(env: Env = process.env): MailConfig {
  const e = parseEnv(ZMailEnv, env);
  if ((e.SMTP_USER === undefined) !== (e.SMTP_PASSWORD === undefined)) {
    throw new ConfigError(['SMTP_USER and SMTP_PASSWORD are set together or not at all']);
  }
  return {
    host: e.SMTP_HOST,
    port: e.SMTP_PORT,
    isSecure: e.SMTP_SECURE,
    auth: e.SMTP_USER !== undefined && e.SMTP_PASSWORD !== undefined ? { user: e.SMTP_USER, pass: e.SMTP_PASSWORD } : null,
    from: e.MAIL_FROM,
  };
}
