import type { CapturedMessage } from './mailbox.ts';

// A page a developer reads: the newest messages first, each opened on its own page.

const escape = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');

/** Escapes the text, then turns the http(s) addresses in it into links. */
function linkify(text: string): string {
  return escape(text).replace(/https?:\/\/[^\s<>"']+/g, (url) => `<a href="${url}">${url}</a>`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1f2933}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #e4e7eb}
pre{white-space:pre-wrap;background:#f5f7fa;padding:1rem;border-radius:4px}iframe{width:100%;height:32rem;border:1px solid #e4e7eb}
.note{color:#52606d}</style></head><body>${body}</body></html>`;
}

export function inboxPage(messages: CapturedMessage[]): string {
  const rows = messages
    .map((m) => `<tr><td><a href="/messages/${escape(m.id)}">${escape(m.subject || '(no subject)')}</a></td><td>${escape(m.to.join(', '))}</td><td>${escape(m.from)}</td><td><time datetime="${escape(m.date)}">${escape(m.date)}</time></td></tr>`)
    .join('');
  const table = messages.length
    ? `<table><caption class="note">${messages.length} message(s), newest first</caption><thead><tr><th scope="col">Subject</th><th scope="col">To</th><th scope="col">From</th><th scope="col">Received</th></tr></thead><tbody>${rows}</tbody></table>`
    : '<p>No messages yet.</p>';
  return page('Mail sandbox inbox', `<h1>Mail sandbox inbox</h1>
<p class="note">Local SMTP stand-in: every message sent to it lands here and nowhere else. JSON: <a href="/__admin/messages">/__admin/messages</a>.</p>${table}`);
}

export function messagePage(m: CapturedMessage): string {
  // The HTML part runs in a sandboxed frame: no scripts, and its links open outside the inbox.
  const frame = m.html
    ? `<h2>HTML</h2><iframe title="HTML part of ${escape(m.subject)}" sandbox="allow-popups allow-popups-to-escape-sandbox" srcdoc="${escape(`<base target="_blank">${m.html}`)}"></iframe>`
    : '<p class="note">No HTML part.</p>';
  return page(m.subject || '(no subject)', `<p><a href="/">← Inbox</a></p><h1>${escape(m.subject || '(no subject)')}</h1>
<dl><dt>From</dt><dd>${escape(m.from)}</dd><dt>To</dt><dd>${escape(m.to.join(', '))}</dd><dt>Received</dt><dd>${escape(m.date)}</dd><dt>Message-ID</dt><dd>${escape(m.messageId ?? '—')}</dd></dl>
<h2>Text</h2><pre>${linkify(m.text)}</pre>${frame}`);
}
