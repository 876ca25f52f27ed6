// The stand-in's pages: Salesforce's "Allow Access?" screen of the OAuth web
// server flow (the app, the access it asks for, Allow or Deny) and a page a
// developer reads: the org's Contacts and Leads with the app's fields, and
// each record with its notes.
import type { Org, SObjectRecord } from './org.ts';

const escape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1a1a1a;max-width:70rem}table{border-collapse:collapse}td,th{border:1px solid #888;padding:.25rem .5rem;text-align:left;vertical-align:top}
button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}.primary{background:#0b5cab;color:#fff;border:0}.note{border:1px solid #888;padding:.5rem;margin:.5rem 0}</style>
</head><body><main>${body}</main></body></html>`;
}

/** Documented scope descriptions (help.salesforce.com "OAuth Tokens and Scopes"). */
const SCOPE_TEXT: Record<string, string> = {
  api: 'Manage user data via APIs',
  refresh_token: 'Perform requests at any time',
  offline_access: 'Perform requests at any time',
};

export function consentPage(input: { error?: string; org?: Org; scopes?: string[]; hidden?: Record<string, string> }): string {
  if (input.error) return page('Error', `<h1>Error</h1><p role="alert">${escape(input.error)}</p>`);
  const hidden = Object.entries(input.hidden ?? {}).map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`).join('');
  return page(
    'Allow Access? (Salesforce stand-in)',
    `<h1>Allow Access?</h1>
<p>Salesforce stand-in for development. Signed in as <strong>${escape(input.org!.username)}</strong> (org ${escape(input.org!.orgId)}).</p>
<p>The app is asking to:</p>
<ul>${(input.scopes ?? []).map((scope) => `<li>${escape(SCOPE_TEXT[scope] ?? scope)} (<code>${escape(scope)}</code>)</li>`).join('')}</ul>
<form method="post" action="/services/oauth2/authorize/decision">${hidden}
<p><button class="primary" type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  );
}

const OWN_STATUS = /^Pe_\d+_Status__c$/;

export function orgPage(org: Org, baseUrl: string): string {
  const sections = ['Contact', 'Lead'].map((objectName) => {
    const object = org.objects.get(objectName)!;
    const rows = [...object.records.values()]
      .map((record) => `<tr><th scope="row"><a href="/lightning/r/${objectName}/${record.Id}/view">${record.Id}</a></th><td>${escape(String(record.Name ?? ''))}</td>
<td>${escape(String(record.Email ?? '(none)'))}</td><td>${escape(String(record.Lead_Score__c ?? ''))}</td>
<td>${Object.keys(record).filter((key) => OWN_STATUS.test(key) && record[key] !== null).map((key) => `${escape(key)}: ${escape(String(record[key]))}`).join('<br>')}</td>
<td>${notesOf(org, record.Id).length}</td></tr>`)
      .join('');
    return `<h2>${objectName}s</h2><table><caption>${objectName}s</caption><thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Lead Score</th><th scope="col">App status</th><th scope="col">Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
  });
  const custom = [...org.objects.get('Contact')!.fields.values(), ...org.objects.get('Lead')!.fields.values()].filter((field) => field.needsGrant).map((field) => escape(field.name));
  return page(
    'Salesforce stand-in',
    `<h1>Salesforce stand-in</h1><p>Org ${escape(org.orgId)}; instance ${escape(baseUrl)}; JSON: <a href="/__admin/state">/__admin/state</a>, calls: <a href="/__admin/calls">/__admin/calls</a>.</p>
<p>App fields: ${custom.join(', ') || 'none yet'}</p>${sections.join('')}`,
  );
}

export function recordPage(org: Org, objectName: string, record: SObjectRecord): string {
  const fields = Object.entries(record)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `<tr><th scope="row">${escape(key)}</th><td style="white-space:pre-wrap">${escape(value === null || value === undefined ? '' : String(value))}</td></tr>`)
    .join('');
  // Note bodies are shown as their HTML source: this page must never run what a note holds.
  const notes = notesOf(org, record.Id)
    .map((note) => `<div class="note"><p>Note ${note.id}: ${escape(note.title)}</p><pre style="white-space:pre-wrap">${escape(note.content)}</pre></div>`)
    .join('');
  return page(`${objectName} ${record.Id}`, `<p><a href="/">Org</a></p><h1>${escape(String(record.Name ?? record.Id))}</h1>
<table><caption>Fields</caption><tbody>${fields}</tbody></table><h2>Notes</h2>${notes || '<p>None.</p>'}`);
}

export function notesOf(org: Org, recordId: string): Array<{ id: string; title: string; content: string }> {
  const links = [...org.objects.get('ContentDocumentLink')!.records.values()].filter((link) => link.LinkedEntityId === recordId);
  return links.map((link) => {
    const id = String(link.ContentDocumentId);
    const note = org.objects.get('ContentNote')!.records.get(id);
    return { id, title: String(note?.Title ?? ''), content: org.noteContent.get(id) ?? '' };
  });
}
