import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.ts';
import { failJob } from '../../services/research/jobs.ts';
import { nudgeMailOutbox, outboxMessageId } from '../../services/mail/outbox.ts';
import { startTestMailOutboxWorker, startTestMailSandbox, type TestMailOutboxWorker, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let mail: TestMailSandbox;
let sender: TestMailOutboxWorker;
const logger = createLogger('test', 'silent');

// No research worker: jobs stay queued, which is all the credits need. The outbox's worker sends.
beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  mail = await startTestMailSandbox();
  sender = await startTestMailOutboxWorker({ config: stack.config, orm: stack.orm, clock: stack.clock.now, mail: mail.config });
});
afterAll(async () => {
  await sender?.stop();
  await mail?.close();
  await stack?.stop();
});
beforeEach(() => mail.sandbox.setFaults({ reject: false, rejectNext: 0, deferNext: 0 }));

async function query<T>(sql: string, params: unknown[]): Promise<T[]> {
  return stack.orm.em.fork().getConnection().execute(sql, params) as Promise<T[]>;
}
const ownerEmail = async (accountId: number) => (await query<{ owner_email: string }>('select owner_email from account where id = ?', [accountId]))[0].owner_email;
const alerts = (accountId: number) => query<{ threshold: number; used: number; limit: number; is_emailed: boolean }>('select threshold, used, "limit", is_emailed from usage_alert where account_id = ? order by threshold', [accountId]);
const outbox = (accountId: number) => query<{ dedupe_key: string; sent_at: Date | null; attempts: number; last_error: string | null }>('select dedupe_key, sent_at, attempts, last_error from email_outbox where account_id = ? order by id', [accountId]);

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const allSent = (accountId: number) => async () => (await outbox(accountId)).every((row) => row.sent_at !== null);

describe('usage alerts (docs/decisions.md#plans)', () => {
  it('60 concurrent requests on Starter (50 credits): the burst crosses 75 % and 95 %, and only the 95 % e-mail goes out', async () => {
    const { accountId, key } = await stack.createCustomer('starter');
    const replies = await Promise.all(Array.from({ length: 60 }, (_, index) => stack.api.research(key, { email: `p${index}@nowhere-corp.com` })));
    expect(replies.filter((reply) => reply.status === 202)).toHaveLength(50);

    const to = await ownerEmail(accountId);
    await until('the alert sent', async () => (await outbox(accountId)).length === 1 && (await allSent(accountId)()));
    // 75 % of 50 is reached by the 38th credit, 95 % by the 48th; the 75 % mail, still held, was withdrawn.
    expect(await alerts(accountId)).toEqual([
      { threshold: 75, used: 38, limit: 50, is_emailed: false },
      { threshold: 95, used: 48, limit: 50, is_emailed: true },
    ]);
    // Past the hold, the sender still has nothing more to send.
    stack.clock.advanceDays(2 / (24 * 60));
    try {
      await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, logger);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      stack.clock.reset();
    }
    const received = mail.sandbox.messages(to);
    expect(received.map((message) => message.subject)).toEqual(['You have used 96% of your credits']);
    const ninetyFive = received[0];
    expect(ninetyFive.text).toContain('48 of its 50 credits');
    expect(ninetyFive.html).toMatch(/href="http:\/\/127\.0\.0\.1:\d+\/app\/billing"/);
    const cycleStart = (await query<{ cycle_start: Date }>('select cycle_start from account where id = ?', [accountId]))[0].cycle_start;
    expect(ninetyFive.messageId).toBe(outboxMessageId(`usage-95:${accountId}:${new Date(cycleStart).toISOString()}`));
  });

  it('usage that stops at 75 %: the 75 % e-mail waits a minute for a burst to go on, then goes out; a later 95 % gets its own', async () => {
    const { accountId, key } = await stack.createCustomer('starter');
    const replies = await Promise.all(Array.from({ length: 38 }, (_, index) => stack.api.research(key, { email: `s${index}@nowhere-corp.com` })));
    expect(replies.filter((reply) => reply.status === 202)).toHaveLength(38);
    await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, logger);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await outbox(accountId)).toEqual([expect.objectContaining({ dedupe_key: expect.stringMatching(/^usage-75:/), sent_at: null, attempts: 0 })]);
    const to = await ownerEmail(accountId);
    expect(mail.sandbox.messages(to)).toHaveLength(0);

    stack.clock.advanceDays(2 / (24 * 60));
    try {
      await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, logger);
      await until('the 75 % alert sent', allSent(accountId));
    } finally {
      stack.clock.reset();
    }
    expect(mail.sandbox.messages(to).map((message) => message.subject)).toEqual(['You have used 76% of your credits']);

    for (let index = 38; index < 48; index += 1) expect((await stack.api.research(key, { email: `s${index}@nowhere-corp.com` })).status).toBe(202);
    await until('the 95 % alert sent', async () => (await outbox(accountId)).length === 2 && (await allSent(accountId)()));
    expect(await alerts(accountId)).toEqual([
      { threshold: 75, used: 38, limit: 50, is_emailed: true },
      { threshold: 95, used: 48, limit: 50, is_emailed: true },
    ]);
    expect(mail.sandbox.messages(to).map((message) => message.subject).sort()).toEqual(['You have used 76% of your credits', 'You have used 96% of your credits']);
  });

  it('one credit crossing both thresholds sends only the 95 % e-mail, and both count as sent', async () => {
    const { accountId, key } = await stack.createCustomer('free');
    const replies = await Promise.all(Array.from({ length: 5 }, (_, index) => stack.api.research(key, { email: `f${index}@nowhere-corp.com` })));
    expect(replies.filter((reply) => reply.status === 202)).toHaveLength(3);
    await until('the alert sent', async () => (await outbox(accountId)).length === 1 && (await allSent(accountId)()));
    expect(await alerts(accountId)).toEqual([
      { threshold: 75, used: 3, limit: 3, is_emailed: false },
      { threshold: 95, used: 3, limit: 3, is_emailed: true },
    ]);
    expect((await outbox(accountId)).map((row) => row.dedupe_key)).toEqual([expect.stringMatching(new RegExp(`^usage-95:${accountId}:`))]);
    expect(mail.sandbox.messages(await ownerEmail(accountId)).map((message) => message.subject)).toEqual(['You have used 100% of your credits']);
  });

  it('refunds do not re-arm a threshold within the cycle', async () => {
    const { accountId, key } = await stack.createCustomer('free');
    const accepted: string[] = [];
    for (let index = 0; index < 3; index += 1) accepted.push((await stack.api.research(key, { email: `r${index}@nowhere-corp.com` })).body.research_id);
    await until('the first alert sent', allSent(accountId));
    for (const researchId of accepted.slice(0, 2)) await failJob(stack.orm.em.fork(), researchId, 'internal_error', stack.clock.now());
    expect((await query<{ credits_used: number }>('select credits_used from account where id = ?', [accountId]))[0].credits_used).toBe(1);
    for (let index = 3; index < 5; index += 1) expect((await stack.api.research(key, { email: `r${index}@nowhere-corp.com` })).status).toBe(202);
    await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, logger);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await outbox(accountId)).toHaveLength(1);
    expect(mail.sandbox.messages(await ownerEmail(accountId))).toHaveLength(1);
  });

  it('alerts turned off in preferences: thresholds recorded, no e-mail', async () => {
    const quiet = await stack.createCustomer('free');
    await query('update account set usage_alerts_enabled = false where id = ?', [quiet.accountId]);
    for (let index = 0; index < 3; index += 1) expect((await stack.api.research(quiet.key, { email: `q${index}@nowhere-corp.com` })).status).toBe(202);
    // An account with alerts on, after it: once its mail is out, the sender has looked at the outbox since.
    const loud = await stack.createCustomer('free');
    for (let index = 0; index < 3; index += 1) await stack.api.research(loud.key, { email: `l${index}@nowhere-corp.com` });
    await mail.waitForMessage(await ownerEmail(loud.accountId));
    expect((await alerts(quiet.accountId)).map((row) => [row.threshold, row.is_emailed])).toEqual([[75, false], [95, false]]);
    expect(await outbox(quiet.accountId)).toHaveLength(0);
    expect(mail.sandbox.messages(await ownerEmail(quiet.accountId))).toHaveLength(0);
  });
});

describe('the outbox when SMTP fails', () => {
  it('a 550 refusal, then recovery: the alert is delivered exactly once', async () => {
    mail.sandbox.setFaults({ reject: true });
    const { accountId, key } = await stack.createCustomer('free');
    for (let index = 0; index < 3; index += 1) await stack.api.research(key, { email: `x${index}@nowhere-corp.com` });
    await until('the refusal recorded', async () => (await outbox(accountId))[0]?.attempts === 1);
    const [refused] = await outbox(accountId);
    expect(refused.sent_at).toBeNull();
    expect(refused.last_error).toMatch(/550/);

    mail.sandbox.setFaults({ reject: false });
    // A refused mail waits a minute before it is tried again; nudges before then change nothing.
    await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, logger);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await outbox(accountId))[0].sent_at).toBeNull();
    stack.clock.advanceDays(2 / (24 * 60));
    try {
      await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, logger);
      await until('the retry sent', allSent(accountId));
      await nudgeMailOutbox(stack.temporal, stack.config.temporal.taskQueue, logger);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    } finally {
      stack.clock.reset();
    }
    expect((await outbox(accountId))[0]).toMatchObject({ attempts: 2, last_error: null });
    expect(mail.sandbox.messages(await ownerEmail(accountId))).toHaveLength(1);
  });

  it('SMTP stopped, then back: the activity retries and the alert is delivered exactly once', async () => {
    const smtpPort = mail.sandbox.smtpPort;
    await mail.close();
    const { accountId, key } = await stack.createCustomer('free');
    for (let index = 0; index < 3; index += 1) await stack.api.research(key, { email: `d${index}@nowhere-corp.com` });
    await until('a failed attempt', async () => ((await outbox(accountId))[0]?.attempts ?? 0) >= 1);
    expect((await outbox(accountId))[0]).toMatchObject({ sent_at: null, last_error: expect.stringMatching(/ECONNREFUSED|ESOCKET|ECONNECTION/) });

    mail = await startTestMailSandbox({ smtpPort });
    // No nudge: the workflow's retry policy brings the activity back.
    await until('delivered after the restart', allSent(accountId), 30_000);
    expect(mail.sandbox.messages(await ownerEmail(accountId))).toHaveLength(1);
  });
});
