import type { MailMessage } from '../mailer.ts';

/** Every value that goes into a mail's HTML passes through here (docs/mail.md: every value HTML-escaped). */
export function escapeHtml(value: string | number): string {
  return String(value)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

export interface MailContent {
  to: string;
  subject: string;
  /** Short line above the paragraphs. */
  heading: string;
  paragraphs: string[];
  /** One button; its URL is also written out in full, for clients that block links. */
  action?: { label: string; url: string };
  /** Small print under the button. */
  footnote?: string;
}

const PRODUCT_NAME = 'Prospect Enrichment';

// One table layout with inline CSS: mail clients ignore <style> blocks and most modern CSS.
export function renderMail(content: MailContent): MailMessage {
  const paragraphs = content.paragraphs.map((text) => `<p style="margin:0 0 16px;font-size:15px;line-height:22px;color:#1f2933">${escapeHtml(text)}</p>`);
  const action = content.action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:12px 20px;background:#1c5dcc;color:#ffffff;text-decoration:none;border-radius:4px;font-size:15px">${escapeHtml(content.action.label)}</a></p>` +
      // A link with a long token is one unbreakable word: without break-all it runs out of the card.
      `<p style="margin:0 0 16px;font-size:13px;line-height:20px;color:#52606d;word-break:break-all;overflow-wrap:anywhere">Or open this address: <a href="${escapeHtml(content.action.url)}" style="color:#1c5dcc;word-break:break-all">${escapeHtml(content.action.url)}</a></p>`
    : '';
  const footnote = content.footnote ? `<p style="margin:16px 0 0;font-size:13px;line-height:20px;color:#52606d">${escapeHtml(content.footnote)}</p>` : '';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f5f7fa">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f5f7fa"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:#ffffff;border:1px solid #e4e7eb;border-radius:6px">
<tr><td style="padding:20px 28px;border-bottom:1px solid #e4e7eb;font-family:Arial,Helvetica,sans-serif;font-size:14px;font-weight:bold;color:#52606d">${PRODUCT_NAME}</td></tr>
<tr><td style="padding:28px;font-family:Arial,Helvetica,sans-serif">
<h1 style="margin:0 0 20px;font-size:20px;line-height:28px;color:#1f2933">${escapeHtml(content.heading)}</h1>
${paragraphs.join('\n')}
${action}
${footnote}
</td></tr></table>
</td></tr></table>
</body></html>`;
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ''] : []),
    ...(content.footnote ? [content.footnote, ''] : []),
    `-- ${PRODUCT_NAME}`,
  ].join('\n');
  return { to: content.to, subject: content.subject, text, html };
}

/** Dates in mails are days, in UTC like the billing cycle: "30 November 2026". */
export function formatMailDate(date: Date): string {
  return date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}
