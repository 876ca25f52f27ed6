// The stand-in's pages: Pipedrive's consent screen (the app, the company, its
// scopes; "Allow and Install" or "Cancel", as pipedrive.readme.io/docs/app-installation-flows
// describes), a person's record (where contact links lead: <api_domain>/person/<id>),
// and an overview for developers.
import { crmPage, escapeHtml } from '../plain-http.ts';
import type { Company, Person } from './company.ts';

const page = (title: string, body: string) => crmPage(title, body, { primaryColour: '#1a5d1a' });

export const errorPage = (message: string) => page('Authorization error', `<h1>Authorization error</h1><p role="alert">${escapeHtml(message)}</p>`);

export function consentPage(input: { company: Company; scopes: string[]; clientId: string; redirectUri: string; state: string }): string {
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  return page(
    'Install the app in Pipedrive (sandbox)',
    `<h1>Install the app in Pipedrive</h1>
<p>Pipedrive stand-in for development. Company ${input.company.companyId} (${escapeHtml(input.company.user.email)}). The app asks for:</p>
<ul>${input.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize/decision">
${hidden('client_id', input.clientId)}${hidden('redirect_uri', input.redirectUri)}${hidden('state', input.state)}${hidden('company_id', String(input.company.companyId))}
<p><button class="primary" type="submit" name="decision" value="approve">Allow and Install</button>
<button type="submit" name="decision" value="deny">Cancel</button></p>
</form>`,
  );
}

export function personPage(company: Company, person: Person): string {
  const fields = [...company.fields.values()].filter((field) => person.custom[field.key] !== undefined);
  const rows = fields.map((field) => `<tr><th scope="row">${escapeHtml(field.name)}</th><td style="white-space:pre-wrap">${escapeHtml(JSON.stringify(person.custom[field.key]))}</td></tr>`).join('');
  // Note contents are shown as their HTML source: this page must never run what a note holds.
  const notes = [...company.notes.values()].filter((note) => note.person_id === person.id)
    .map((note) => `<div class="note"><p>Note ${note.id}, ${escapeHtml(note.add_time)}</p><pre style="white-space:pre-wrap">${escapeHtml(note.content)}</pre></div>`).join('');
  return page(`${person.name} (person ${person.id})`, `<p><a href="/">Company ${company.companyId}</a></p><h1>${escapeHtml(person.name)}</h1>
<p>${escapeHtml(person.emails.map((email) => email.value).join(', ') || '(no e-mail)')}</p>
<table><caption>Custom fields</caption><tbody>${rows}</tbody></table><h2>Notes</h2>${notes || '<p>None.</p>'}`);
}

export function companyPage(company: Company, baseUrl: string): string {
  const rows = [...company.persons.values()].map((person) => `<tr><th scope="row"><a href="/person/${person.id}">${person.id}</a></th><td>${escapeHtml(person.name)}</td>
<td>${escapeHtml(person.emails[0]?.value ?? '(none)')}</td><td>${[...company.notes.values()].filter((note) => note.person_id === person.id).length}</td></tr>`).join('');
  const custom = [...company.fields.values()].filter((field) => field.edit_flag && field.active_flag).map((field) => escapeHtml(`${field.name} (${field.field_type})`)).join(', ');
  return page('Pipedrive stand-in', `<h1>Pipedrive stand-in</h1><p>API base ${escapeHtml(baseUrl)}; JSON: <a href="/__admin/state">/__admin/state</a>, calls: <a href="/__admin/calls">/__admin/calls</a>.</p>
<p>Custom person fields: ${custom}</p>
<table><caption>Persons of company ${company.companyId}</caption><thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Notes</th></tr></thead><tbody>${rows}</tbody></table>`);
}
