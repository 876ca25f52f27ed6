import nodemailer from 'nodemailer';
import type { MailConfig } from './config.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface SendOptions {
  /**
   * RFC 5322 Message-ID, e.g. from an outbox row's dedupe key, so that a copy
   * sent twice (a crash between the SMTP reply and recording it) is recognisable.
   */
  messageId?: string;
}

export interface Mailer {
  send(message: MailMessage, options?: SendOptions): Promise<void>;
  close(): void;
}

/**
 * Failure types as strings (docs/architecture.md#activity-option-profiles-and-failure-types): `mail_rejected` is a permanent
 * refusal of this message (an SMTP 5yz reply, RFC 5321 §4.2.1) that a retry
 * would meet again; `mail_unavailable` is anything a later attempt may get
 * past (4yz replies, refused or dropped connections, timeouts, and also
 * authentication or TLS trouble, which an operator can fix while mail waits).
 */
export const MAIL_FAILURE_TYPES = ['mail_rejected', 'mail_unavailable'] as const;
export type MailFailureType = (typeof MAIL_FAILURE_TYPES)[number];

export class MailSendError extends Error {
  readonly type: MailFailureType;
  /** The SMTP reply code, when the server answered at all. */
  readonly responseCode: number | null;

  constructor(type: MailFailureType, message: string, responseCode: number | null, cause: unknown) {
    super(message, { cause });
    this.name = 'MailSendError';
    this.type = type;
    this.responseCode = responseCode;
  }

  get isPermanent(): boolean {
    return this.type === 'mail_rejected';
  }
}

const CONNECT_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** Sends over SMTP with nodemailer; a few pooled connections serve every caller of one process. */
export function createMailer(config: MailConfig): Mailer {
  const transport = nodemailer.createTransport({
    host: config.host,
    port: config.port,
    secure: config.isSecure,
    ...(config.auth ? { auth: config.auth } : {}),
    pool: true,
    maxConnections: 3,
    connectionTimeout: CONNECT_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
  });
  return {
    async send(message, options = {}) {
      try {
        await transport.sendMail({
          from: config.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
          ...(options.messageId ? { messageId: options.messageId } : {}),
        });
      } catch (error) {
        throw classifySendError(error);
      }
    },
    close() {
      transport.close();
    },
  };
}

/** RFC 5321 §4.2.1: 5yz is a permanent negative reply, 4yz a transient one; 503 is a sequence error, not a refusal. */
export function classifySendError(error: unknown): MailSendError {
  const details = (error ?? {}) as { responseCode?: unknown; code?: unknown; message?: unknown };
  const responseCode = typeof details.responseCode === 'number' ? details.responseCode : null;
  const isPermanent = responseCode !== null && responseCode >= 500 && responseCode < 600 && responseCode !== 503 && details.code !== 'EAUTH';
  const reason = typeof details.message === 'string' ? details.message : String(error);
  const code = typeof details.code === 'string' ? `${details.code}: ` : '';
  return new MailSendError(isPermanent ? 'mail_rejected' : 'mail_unavailable', `${code}${reason}`, responseCode, error);
}
