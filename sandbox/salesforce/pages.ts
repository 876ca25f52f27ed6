// The stand-in's pages: Salesforce's "Allow Access?" screen of the OAuth web
// server flow (the app, the access it asks for, Allow or Deny) and a page a
// developer reads: the org's Contacts and Leads with the app's fields, and
// each record with its notes.
import { crmPage, escapeHtml } from '../plain-http.ts';
import type { Org, SObjectRecord } from './org.ts';

const page = (title: string, body: string) => crmPage(title, body, { primaryColour: '#0b5cab' });

/** Documented scope descriptions (help.salesforce.com "OAuth Tokens and Scopes"). */
const SCOPE_TEXT: Record<string, string> = {
  api: 'Manage user data via APIs',
  refresh_token: 'Perform requests at any time',
  offline_access: 'Perform requests at any time',
};

export function consentPage(input: { error?: string; org?: Org; scopes?: string[]; hidden?: Record<string, string> }): string {
  if (input.error) return page('Error', `<h1>Error</h1><p role="alert">${escapeHtml(input.error)}</p>`);
  const hidden = Object.entries(input.hidden ?? {}).map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`).join('');
  return page(
    'Allow Access? (Salesforce stand-in)',
    `<h1>Allow Access?</h1>
<p>Salesforce stand-in for development. Signed in as <strong>${escapeHtml(input.org!.username)}</strong> (org ${escapeHtml(input.org!.orgId)}).</p>
<p>The app is asking to:</p>
<ul>${(input.scopes ?? []).map((scope) => `<li>${escapeHtml(SCOPE_TEXT[scope] ?? scope)} (<code>${escapeHtml(scope)}</code>)</li>`).join('')}</ul>
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
      .map((record) => `<tr><th scope="row"><a href="/lightning/r/${objectName}/${record.Id}/view">${record.Id}</a></th><td>${escapeHtml(String(record.Name ?? ''))}</td>
<td>${escapeHtml(String(record.Email ?? '(none)'))}</td><td>${escapeHtml(String(record.Lead_Score__c ?? ''))}</td>
<td>${Object.keys(record).filter((key) => OWN_STATUS.test(key) && record[key] !== null).map((key) => `${escapeHtml(key)}: ${escapeHtml(String(record[key]))}`).join('<br>')}</td>
<td>${notesOf(org, record.Id).length}</td></tr>`)
      .join('');
    return `<h2>${objectName}s</h2><table><caption>${objectName}s</caption><thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Lead Score</th><th scope="col">App status</th><th scope="col">Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
  });
  const custom = [...org.objects.get('Contact')!.fields.values(), ...org.objects.get('Lead')!.fields.values()].filter((field) => field.needsGrant).map((field) => escapeHtml(field.name));
  return page(
    'Salesforce stand-in',
    `<h1>Salesforce stand-in</h1><p>Org ${escapeHtml(org.orgId)}; instance ${escapeHtml(baseUrl)}; JSON: <a href="/__admin/state">/__admin/state</a>, calls: <a href="/__admin/calls">/__admin/calls</a>.</p>
<p>App fields: ${custom.join(', ') || 'none yet'}</p>${sections.join('')}`,
  );
}

export function recordPage(org: Org, objectName: string, record: SObjectRecord): string {
  const fields = Object.entries(record)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `<tr><th scope="row">${escapeHtml(key)}</th><td style="white-space:pre-wrap">${escapeHtml(value === null || value === undefined ? '' : String(value))}</td></tr>`)
    .join('');
  // Note bodies are shown as their HTML source: this page must never run what a note holds.
  const notes = notesOf(org, record.Id)
    .map((note) => `<div class="note"><p>Note ${note.id}: ${escapeHtml(note.title)}</p><pre style="white-space:pre-wrap">${escapeHtml(note.content)}</pre></div>`)
    .join('');
  return page(`${objectName} ${record.Id}`, `<p><a href="/">Org</a></p><h1>${escapeHtml(String(record.Name ?? record.Id))}</h1>
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
