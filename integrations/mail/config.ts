import { z } from 'zod';

/** Where the SMTP stand-in listens in local development (`npm run dev` starts it). */
export const DEFAULT_MAIL_SANDBOX_SMTP_PORT = 4025;
/** Its web inbox and JSON list of messages. */
export const DEFAULT_MAIL_SANDBOX_HTTP_PORT = 4310;

// `FOO=` in a .env file means "not set", not "set to nothing".
const blankIsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optionalText = z.preprocess(blankIsUnset, z.string().optional());

const ZMailEnv = z.object({
  SMTP_HOST: z.preprocess(blankIsUnset, z.string().trim().min(1).default('127.0.0.1')),
  SMTP_PORT: z.preprocess(blankIsUnset, z.coerce.number().int().min(1).max(65535).default(DEFAULT_MAIL_SANDBOX_SMTP_PORT)),
  /** `true` for implicit TLS (port 465); `false` upgrades with STARTTLS when the server offers it. */
  SMTP_SECURE: z.preprocess(blankIsUnset, z.enum(['true', 'false']).default('false')),
  SMTP_USER: optionalText,
  SMTP_PASSWORD: optionalText,
  MAIL_FROM: z.preprocess(blankIsUnset, z.string().trim().min(3).default('Prospect Enrichment <no-reply@prospect-enrichment.localhost>')),
});

export interface MailConfig {
  host: string;
  port: number;
  isSecure: boolean;
  /** Both or neither: an SMTP server either wants AUTH or does not. */
  auth: { user: string; pass: string } | null;
  from: string;
}

/** Parses the SMTP settings once at start-up; the defaults point at the local stand-in. */
export function loadMailConfig(env: NodeJS.ProcessEnv = process.env): MailConfig {
  const parsed = ZMailEnv.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid mail configuration: ${problems}`);
  }
  const e = parsed.data;
  if ((e.SMTP_USER === undefined) !== (e.SMTP_PASSWORD === undefined)) {
    throw new Error('Invalid mail configuration: SMTP_USER and SMTP_PASSWORD are set together or not at all');
  }
  return {
    host: e.SMTP_HOST,
    port: e.SMTP_PORT,
    isSecure: e.SMTP_SECURE === 'true',
    auth: e.SMTP_USER !== undefined && e.SMTP_PASSWORD !== undefined ? { user: e.SMTP_USER, pass: e.SMTP_PASSWORD } : null,
    from: e.MAIL_FROM,
  };
}
