import { ApplicationFailure } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import { MAIL_OUTBOX_FAILURE_TYPES, type MailOutboxPass } from '../domain/mail/outbox-contract.ts';
import { MailSendError, classifySendError, type Mailer } from '../integrations/mail/mailer.ts';
import { outboxMessageId } from '../services/mail/outbox.ts';

export interface MailOutboxDeps {
  orm: Orm;
  mailer: Mailer;
  clock: () => Date;
}

/** Rows one pass sends at most; the workflow runs another pass while rows are left. */
const ROWS_PER_PASS = 100;
/** Senders side by side, as many as the mailer's pooled SMTP connections. */
const PARALLEL_SENDERS = 3;
/** A refused (5yz) mail is tried again after 1, 2, 4 … minutes, at most an hour apart, … */
const REFUSAL_BACKOFF_MS = 60_000;
const MAX_REFUSAL_BACKOFF_MS = 60 * 60_000;
/** … and given up after this many refusals (about four hours): a 550 can be a misconfigured relay an operator fixes. */
const MAX_REFUSALS = 8;

interface OutboxRow {
  id: number;
  dedupe_key: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  attempts: number;
}

type RowOutcome = 'sent' | 'refused' | 'unavailable' | 'none';

export function createMailOutboxActivities({ orm, mailer, clock }: MailOutboxDeps) {
  /**
   * Claims one due row (FOR UPDATE SKIP LOCKED: concurrent senders never take
   * the same row), sends it and records the outcome in that same transaction.
   * The one window for a second copy: the process dies after the SMTP server
   * accepted the mail and before the commit; the lock then lapses and the row
   * is sent again, with the same Message-ID, so the copy is recognisable.
   */
  async function sendOne(triedThisPass: number[]): Promise<{ outcome: RowOutcome; error?: MailSendError }> {
    return orm.em.fork().transactional(async (tx: EntityManager) => {
      const now = clock();
      const [row]: OutboxRow[] = await tx.execute(
        `select id, dedupe_key, recipient, subject, text, html, attempts from email_outbox
         where sent_at is null and failed_at is null and next_attempt_at <= ? and id not in (?)
         order by next_attempt_at, id limit 1 for update skip locked`,
        // A row tried once in a pass waits for the next pass (and its retry policy's pause); -1 keeps the list non-empty.
        [now, [-1, ...triedThisPass]],
      );
      if (!row) return { outcome: 'none' as const };
      triedThisPass.push(row.id);
      try {
        await mailer.send({ to: row.recipient, subject: row.subject, text: row.text, html: row.html }, { messageId: outboxMessageId(row.dedupe_key) });
      } catch (caught) {
        const error = caught instanceof MailSendError ? caught : classifySendError(caught);
        const attempts = row.attempts + 1;
        if (error.isPermanent) {
          const delayMs = Math.min(REFUSAL_BACKOFF_MS * 2 ** (attempts - 1), MAX_REFUSAL_BACKOFF_MS);
          await tx.execute('update email_outbox set attempts = ?, last_error = ?, next_attempt_at = ?, failed_at = ? where id = ?', [
            attempts,
            error.message,
            new Date(now.getTime() + delayMs),
            attempts >= MAX_REFUSALS ? now : null,
            row.id,
          ]);
          return { outcome: 'refused' as const, error };
        }
        // Due again at once: the activity's retry policy paces the next attempt.
        await tx.execute('update email_outbox set attempts = ?, last_error = ? where id = ?', [attempts, error.message, row.id]);
        return { outcome: 'unavailable' as const, error };
      }
      await tx.execute('update email_outbox set attempts = attempts + 1, sent_at = ?, last_error = null where id = ?', [clock(), row.id]);
      return { outcome: 'sent' as const };
    });
  }

  return {
    /**
     * Sends the due mail of the outbox, up to ROWS_PER_PASS rows. SMTP being
     * unreachable or answering 4yz fails the activity with a retryable
     * `SmtpUnavailable`, so Temporal's retry policy tries again; the rows stay due.
     */
    async sendPendingMail(): Promise<MailOutboxPass> {
      const pass = { sent: 0, refused: 0, taken: 0 };
      const triedThisPass: number[] = [];
      let isDrained = false;
      let unavailable: MailSendError | null = null;
      const sender = async () => {
        while (!isDrained && !unavailable && pass.taken < ROWS_PER_PASS) {
          pass.taken += 1;
          const { outcome, error } = await sendOne(triedThisPass);
          if (outcome === 'none') isDrained = true;
          else if (outcome === 'sent') pass.sent += 1;
          else if (outcome === 'refused') pass.refused += 1;
          else unavailable = error ?? null;
        }
      };
      await Promise.all(Array.from({ length: PARALLEL_SENDERS }, sender));
      if (unavailable) {
        const error: MailSendError = unavailable;
        throw ApplicationFailure.create({ type: MAIL_OUTBOX_FAILURE_TYPES.smtpUnavailable, message: error.message, nonRetryable: false, details: [{ sent: pass.sent }] });
      }
      return { sent: pass.sent, refused: pass.refused, isDrained };
    },
  };
}

export type MailOutboxActivities = ReturnType<typeof createMailOutboxActivities>;
