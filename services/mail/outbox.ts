import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';
import { MAIL_OUTBOX_WORKFLOW_TYPE, MAIL_QUEUED_SIGNAL, mailOutboxWorkflowId, mailTaskQueue } from '../../domain/mail/outbox-contract.ts';
import { MAINTENANCE_DIVISION } from '../../domain/research/contract.ts';
import type { MailMessage } from '../../integrations/mail/mailer.ts';
import type { Logger } from '../../lib/logger.ts';

export interface MailToEnqueue {
  /** The account the mail is about; null for none. The row outlives the account (set null). */
  accountId: number | null;
  /** One mail per key, ever: `usage-95:<account>:<cycle start ISO>`, `account-deleted:<account>`, … */
  dedupeKey: string;
  message: MailMessage;
  /** Seconds to keep the mail back before it is due, so that a later mail can still withdraw it; default 0. */
  holdSeconds?: number;
}

/**
 * Writes a mail to the outbox inside the caller's transaction, so it goes out
 * if and only if the caller's change commits (docs/mail.md#the-outbox). A second mail with the same dedupe key is ignored.
 * True when this call added it. After the commit, `nudgeMailOutbox` sends it
 * at once; otherwise the outbox Schedule sends it within a minute.
 */
export async function enqueueMail(em: EntityManager, { accountId, dedupeKey, message, holdSeconds = 0 }: MailToEnqueue): Promise<boolean> {
  const inserted: unknown[] = await em.execute(
    `insert into email_outbox (account_id, dedupe_key, recipient, subject, text, html, created_at, next_attempt_at, attempts)
     values (?, ?, ?, ?, ?, ?, now(), now() + make_interval(secs => ?), 0)
     on conflict (dedupe_key) do nothing returning id`,
    [accountId, dedupeKey, message.to, message.subject, message.text, message.html, holdSeconds],
  );
  return inserted.length > 0;
}

/**
 * Takes back a mail that has not gone out yet, inside the caller's transaction. A mail the sender is sending holds
 * its row lock until the attempt is recorded, so this waits for it and then finds it sent. True when one was taken back.
 */
export async function withdrawMail(em: EntityManager, dedupeKey: string): Promise<boolean> {
  const deleted: unknown[] = await em.execute(
    'delete from email_outbox where dedupe_key = ? and sent_at is null and failed_at is null returning id',
    [dedupeKey],
  );
  return deleted.length > 0;
}

/** Message-ID of an outbox mail: the same for every attempt, so a copy sent twice is recognisable. */
export function outboxMessageId(dedupeKey: string): string {
  // RFC 5322 dot-atom text: letters, digits, '-' and '_' kept; every other byte as =XX.
  const local = [...Buffer.from(dedupeKey, 'utf8')]
    .map((byte) => (/[A-Za-z0-9_-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
  return `<${local}@outbox.prospect-enrichment>`;
}

const NUDGE_TIMEOUT_MS = 3_000;

/**
 * The sender's runs (nudged and scheduled) go in the maintenance division, out
 * of the Temporal UI's default workflow list, as the sweeps do: a minute's
 * Schedule would otherwise bury the research jobs there.
 */
export const MAIL_OUTBOX_SEARCH_ATTRIBUTES: SearchAttributePair[] = [
  { key: defineSearchAttributeKey('TemporalNamespaceDivision', SearchAttributeType.KEYWORD), value: MAINTENANCE_DIVISION },
];

/**
 * Wakes the sender after a commit that enqueued mail: signal-with-start on one
 * workflow id, so concurrent nudges join the running sender, and one arriving
 * while it sends makes it look again. Best effort, never throws: the Schedule
 * picks the mail up within a minute if Temporal cannot be reached now.
 */
export async function nudgeMailOutbox(temporal: Client, researchTaskQueue: string, logger: Logger): Promise<void> {
  try {
    await temporal.connection.withDeadline(Date.now() + NUDGE_TIMEOUT_MS, () =>
      temporal.workflow.signalWithStart(MAIL_OUTBOX_WORKFLOW_TYPE, {
        workflowId: mailOutboxWorkflowId(researchTaskQueue),
        taskQueue: mailTaskQueue(researchTaskQueue),
        args: [],
        signal: MAIL_QUEUED_SIGNAL,
        signalArgs: [],
        typedSearchAttributes: MAIL_OUTBOX_SEARCH_ATTRIBUTES,
      }),
    );
  } catch (error) {
    logger.warn({ err: error }, 'could not nudge the mail outbox; its Schedule sends the mail within a minute');
  }
}
