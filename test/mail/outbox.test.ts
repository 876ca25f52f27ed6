import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMailOutboxActivities } from '../../activities/mail-outbox.ts';
import type { Orm } from '../../db/orm.ts';
import { createMailer, type Mailer } from '../../integrations/mail/mailer.ts';
import { verifyEmail } from '../../integrations/mail/templates/index.ts';
import { enqueueMail, outboxMessageId } from '../../services/mail/outbox.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/scratch-database.ts';

// The outbox's activity on its own, against a fresh database and the SMTP stand-in.

let orm: Orm;
let mail: TestMailSandbox;
let mailer: Mailer;
let database: ScratchDatabase;

beforeAll(async () => {
  database = await createScratchDatabase('outbox', { poolMax: 8 });
  [orm] = database.orms as [Orm];
  mail = await startTestMailSandbox();
  mailer = createMailer(mail.config);
});
afterAll(async () => {
  mailer?.close();
  await mail?.close();
  await database?.drop();
});
beforeEach(async () => {
  mail.sandbox.clear();
  mail.sandbox.setFaults({ reject: false, rejectNext: 0, deferNext: 0, rejectTo: [] });
  await orm.em.fork().execute('delete from email_outbox');
});

const rows = () => orm.em.fork().execute<Array<{ dedupe_key: string; sent_at: string | null; failed_at: string | null; attempts: number; next_attempt_at: string }>>('select dedupe_key, sent_at, failed_at, attempts, next_attempt_at from email_outbox order by id');

describe('enqueueMail', () => {
  it('writes inside the caller transaction: nothing when it rolls back, once per dedupe key when it commits', async () => {
    const message = verifyEmail({ to: 'tx@example.com', url: 'http://x.test/' });
    await orm.em.fork().transactional(async (tx) => {
      expect(await enqueueMail(tx, { accountId: null, dedupeKey: 'rolled-back', message })).toBe(true);
      throw new Error('rollback');
    }).catch(() => {});
    expect(await rows()).toHaveLength(0);

    const first = await orm.em.fork().transactional((tx) => enqueueMail(tx, { accountId: null, dedupeKey: 'once', message }));
    const second = await orm.em.fork().transactional((tx) => enqueueMail(tx, { accountId: null, dedupeKey: 'once', message }));
    expect([first, second]).toEqual([true, false]);
    expect((await rows()).map((row) => row.dedupe_key)).toEqual(['once']);
  });
});

describe('sendPendingMail', () => {
  it('two senders at once send every row exactly once, with a Message-ID from its dedupe key', async () => {
    const em = orm.em.fork();
    for (let index = 0; index < 40; index += 1) {
      await enqueueMail(em, { accountId: null, dedupeKey: `bulk:${index}`, message: verifyEmail({ to: `bulk${index}@example.com`, url: `http://x.test/${index}` }) });
    }
    const clock = () => new Date(Date.now() + 1_000);
    const [a, b] = [createMailOutboxActivities({ orm, mailer, clock }), createMailOutboxActivities({ orm, mailer, clock })];
    const passes = await Promise.all([a.sendPendingMail(), b.sendPendingMail()]);
    expect(passes[0].sent + passes[1].sent).toBe(40);
    expect(passes.every((pass) => pass.isDrained)).toBe(true);
    const received = mail.sandbox.messages();
    expect(received).toHaveLength(40);
    expect(new Set(received.map((message) => message.messageId)).size).toBe(40);
    expect(received.find((message) => message.to[0] === 'bulk7@example.com')?.messageId).toBe(outboxMessageId('bulk:7'));
    expect((await rows()).every((row) => row.sent_at !== null && row.attempts === 1)).toBe(true);
  });

  it('a refused mail backs off, is given up after repeated refusals, and never blocks the others', async () => {
    const em = orm.em.fork();
    await enqueueMail(em, { accountId: null, dedupeKey: 'refused', message: verifyEmail({ to: 'no@example.com', url: 'http://x.test/' }) });
    await enqueueMail(em, { accountId: null, dedupeKey: 'fine', message: verifyEmail({ to: 'yes@example.com', url: 'http://x.test/' }) });
    let now = Date.now() + 1_000;
    const activities = createMailOutboxActivities({ orm, mailer, clock: () => new Date(now) });
    mail.sandbox.setFaults({ rejectTo: ['no@example.com'] });
    expect(await activities.sendPendingMail()).toEqual({ sent: 1, refused: 1, isDrained: true });
    const [refused] = await rows();
    expect(refused).toMatchObject({ dedupe_key: 'refused', attempts: 1, sent_at: null, failed_at: null });
    expect(new Date(refused.next_attempt_at).getTime()).toBe(now + 60_000);

    mail.sandbox.setFaults({ reject: true });
    for (let attempt = 2; attempt <= 8; attempt += 1) {
      now += 2 * 60 * 60_000;
      expect(await activities.sendPendingMail()).toMatchObject({ refused: 1 });
    }
    const [givenUp] = await rows();
    expect(givenUp.attempts).toBe(8);
    expect(givenUp.failed_at).not.toBeNull();
    now += 24 * 60 * 60_000;
    expect(await activities.sendPendingMail()).toEqual({ sent: 0, refused: 0, isDrained: true });
  });

  it('SMTP answering 451 fails the pass as SmtpUnavailable and leaves the row due', async () => {
    await enqueueMail(orm.em.fork(), { accountId: null, dedupeKey: 'later', message: verifyEmail({ to: 'later@example.com', url: 'http://x.test/' }) });
    const activities = createMailOutboxActivities({ orm, mailer, clock: () => new Date(Date.now() + 1_000) });
    mail.sandbox.setFaults({ deferNext: 1 });
    await expect(activities.sendPendingMail()).rejects.toMatchObject({ type: 'SmtpUnavailable', nonRetryable: false });
    const [deferred] = await rows();
    expect({ attempts: deferred.attempts, sent_at: deferred.sent_at, failed_at: deferred.failed_at }).toEqual({ attempts: 1, sent_at: null, failed_at: null });
    expect(await activities.sendPendingMail()).toEqual({ sent: 1, refused: 0, isDrained: true });
    expect(mail.sandbox.messages('later@example.com')).toHaveLength(1);
  });
});
