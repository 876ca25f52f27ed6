import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/lib/free-port.ts';
import { loadMailConfig } from '../../integrations/mail/config.ts';
import { createMailer, MailSendError, type Mailer } from '../../integrations/mail/mailer.ts';
import { usageAlertEmail, verifyEmail } from '../../integrations/mail/templates/index.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';

let mail: TestMailSandbox;
let mailer: Mailer;

beforeAll(async () => {
  mail = await startTestMailSandbox();
  mailer = createMailer(mail.config);
});
afterAll(async () => {
  mailer.close();
  await mail.close();
});
beforeEach(() => {
  mail.sandbox.clear();
  mail.sandbox.setFaults({ reject: false, rejectNext: 0, deferNext: 0 });
});

describe('the mailer over SMTP to the stand-in', () => {
  it('delivers subject, text, HTML, sender and Message-ID', async () => {
    await mailer.send(verifyEmail({ to: 'Owner@Example.com', url: 'http://127.0.0.1:3000/verify?token=abc' }), { messageId: '<usage-75.1.x@test.example>' });
    const [message] = mail.sandbox.messages('owner@example.com');
    expect(message.subject).toBe('Verify your e-mail address');
    expect(message.from).toBe('no-reply@test.example');
    expect(message.text).toContain('http://127.0.0.1:3000/verify?token=abc');
    expect(message.html).toContain('href="http://127.0.0.1:3000/verify?token=abc"');
    expect(message.messageId).toBe('<usage-75.1.x@test.example>');
  });

  it('escapes every value in the HTML part and keeps it verbatim in the text part', async () => {
    const hostile = 'http://x.test/?a=1&b="><script>alert(1)</script>';
    await mailer.send(verifyEmail({ to: 'escape@example.com', url: hostile }));
    const message = await mail.waitForMessage('escape@example.com');
    expect(message.html).not.toContain('<script>');
    expect(message.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(message.html).toContain('a=1&amp;b=&quot;&gt;');
    expect(message.text).toContain(hostile);
  });

  it('writes usage, limit, cycle end and the billing link into a usage alert', async () => {
    const alert = usageAlertEmail({ to: 'usage@example.com', used: 150, limit: 200, percent: 75, cycleEnd: new Date('2026-12-05T10:00:00Z'), publicUrl: 'https://app.example.com/' });
    await mailer.send(alert);
    const message = await mail.waitForMessage('usage@example.com');
    expect(message.subject).toBe('You have used 75% of your credits');
    expect(message.text).toContain('150 of its 200 credits');
    expect(message.text).toContain('5 December 2026');
    expect(message.html).toContain('href="https://app.example.com/app/billing"');
  });

  it('reports a 550 on RCPT as a permanent rejection, and then delivers again', async () => {
    mail.sandbox.setFaults({ rejectNext: 1 });
    const failure = await mailer.send(verifyEmail({ to: 'refused@example.com', url: 'http://x.test/' })).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MailSendError);
    expect(failure).toMatchObject({ type: 'mail_rejected', responseCode: 550, isPermanent: true });
    expect(mail.sandbox.messages('refused@example.com')).toHaveLength(0);
    await mailer.send(verifyEmail({ to: 'refused@example.com', url: 'http://x.test/' }));
    expect(mail.sandbox.messages('refused@example.com')).toHaveLength(1);
  });

  it('reports a 451 on RCPT as temporary', async () => {
    mail.sandbox.setFaults({ deferNext: 1 });
    const failure = await mailer.send(verifyEmail({ to: 'later@example.com', url: 'http://x.test/' })).catch((error: unknown) => error);
    expect(failure).toMatchObject({ type: 'mail_unavailable', responseCode: 451, isPermanent: false });
  });

  it('reports a refused connection as temporary', async () => {
    const closedPort = await freePort();
    const nowhere = createMailer(loadMailConfig({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(closedPort) }));
    try {
      const failure = await nowhere.send(verifyEmail({ to: 'x@example.com', url: 'http://x.test/' })).catch((error: unknown) => error);
      expect(failure).toMatchObject({ type: 'mail_unavailable', responseCode: null, isPermanent: false });
      expect((failure as Error).message).toMatch(/ECONNREFUSED|ESOCKET|ECONNECTION/);
    } finally {
      nowhere.close();
    }
  });
});

describe('the stand-in over HTTP', () => {
  it('lists messages as JSON with a ?to= filter, clears them, and takes faults', async () => {
    await mailer.send(verifyEmail({ to: 'a@example.com', url: 'http://x.test/a' }));
    await mailer.send(verifyEmail({ to: 'b@example.com', url: 'http://x.test/b' }));
    const listed = (await (await fetch(`${mail.sandbox.url}/__admin/messages?to=B@example.com`)).json()) as { messages: Array<{ to: string[]; text: string }> };
    expect(listed.messages).toHaveLength(1);
    expect(listed.messages[0]).toMatchObject({ to: ['b@example.com'] });
    expect(listed.messages[0].text).toContain('http://x.test/b');

    const inbox = await (await fetch(`${mail.sandbox.url}/`)).text();
    expect(inbox).toContain('Verify your e-mail address');
    const opened = await (await fetch(`${mail.sandbox.url}/messages/${mail.sandbox.messages('a@example.com')[0].id}`)).text();
    expect(opened).toContain('<a href="http://x.test/a">http://x.test/a</a>');

    expect((await fetch(`${mail.sandbox.url}/__admin/calls`)).status).toBe(200);
    expect((await fetch(`${mail.sandbox.url}/__admin/messages`, { method: 'DELETE' })).status).toBe(200);
    expect(mail.sandbox.messages()).toHaveLength(0);

    const bad = await fetch(`${mail.sandbox.url}/__admin/faults`, { method: 'POST', body: JSON.stringify({ rejectNxt: 1 }) });
    expect(bad.status).toBe(400);
    const set = await fetch(`${mail.sandbox.url}/__admin/faults`, { method: 'POST', body: JSON.stringify({ reject: true }) });
    expect(await set.json()).toMatchObject({ reject: true });
    await expect(mailer.send(verifyEmail({ to: 'c@example.com', url: 'http://x.test/c' }))).rejects.toMatchObject({ type: 'mail_rejected' });
  });
});

describe('mail configuration', () => {
  it('defaults to the local stand-in, blanks count as unset, and bad values are named', () => {
    expect(loadMailConfig({ SMTP_HOST: '', SMTP_PORT: ' ', SMTP_USER: '', SMTP_PASSWORD: '' })).toEqual({
      host: '127.0.0.1',
      port: 4025,
      isSecure: false,
      auth: null,
      from: 'Prospect Enrichment <no-reply@prospect-enrichment.localhost>',
    });
    expect(loadMailConfig({ SMTP_HOST: 'smtp.example.com', SMTP_PORT: '465', SMTP_SECURE: 'true', SMTP_USER: 'u', SMTP_PASSWORD: 'p' })).toMatchObject({
      port: 465,
      isSecure: true,
      auth: { user: 'u', pass: 'p' },
    });
    expect(() => loadMailConfig({ SMTP_PORT: 'abc' })).toThrow(/SMTP_PORT="abc" is not accepted/);
    expect(() => loadMailConfig({ SMTP_USER: 'u' })).toThrow(/SMTP_USER and SMTP_PASSWORD/);
  });
});
