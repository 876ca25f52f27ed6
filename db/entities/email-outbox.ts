import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from './account.ts';

/**
 * An e-mail that must go out once (usage alerts, deletion notices, payment
 * failures): written in the transaction that causes it and sent by the outbox
 * activity (docs/mail.md#the-outbox).
 */
export const EmailOutbox = defineEntity({
  name: 'EmailOutbox',
  tableName: 'email_outbox',
  properties: {
    id: p.integer().primary(),
    /** Null once the account is deleted: a deletion notice still goes out. */
    account: () => p.manyToOne(Account).nullable().deleteRule('set null'),
    /** What makes this mail one of a kind, e.g. `usage-95:<account>:<cycle start>`; a second enqueue is ignored. */
    dedupeKey: p.string().unique(),
    recipient: p.string(),
    subject: p.text(),
    text: p.text(),
    html: p.text(),
    createdAt: p.datetime(),
    /** Not tried before this moment: set after a refusal, so a mailbox that says 550 is not hammered. */
    nextAttemptAt: p.datetime(),
    sentAt: p.datetime().nullable(),
    /** Given up after repeated permanent refusals; the row stays as the record. */
    failedAt: p.datetime().nullable(),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
});

export type IEmailOutbox = InferEntity<typeof EmailOutbox>;
