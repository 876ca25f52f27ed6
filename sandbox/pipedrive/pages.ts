// The stand-in's pages: Pipedrive's consent screen (the app, the company, its
// scopes; "Allow and Install" or "Cancel", as pipedrive.readme.io/docs/app-installation-flows
// describes), a person's record (where contact links lead: <api_domain>/person/<id>),
// and an overview for developers.
import type { Company, Person } from './company.ts';

const escape = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1a1a1a;max-width:70rem}table{border-collapse:collapse}td,th{border:1px solid #888;padding:.25rem .5rem;text-align:left;vertical-align:top}
button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}.primary{background:#1a5d1a;color:#fff;border:0}.note{border:1px solid #888;padding:.5rem;margin:.5rem 0}</style>
</head><body><main>${body}</main></body></html>`;
}

export const errorPage = (message: string) => page('Authorization error', `<h1>Authorization error</h1><p role="alert">${escape(message)}</p>`);

export function consentPage(input: { company: Company; scopes: string[]; clientId: string; redirectUri: string; state: string }): string {
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;
  return page(
    'Install the app in Pipedrive (sandbox)',
    `<h1>Install the app in Pipedrive</h1>
<p>Pipedrive stand-in for development. Company ${input.company.companyId} (${escape(input.company.user.email)}). The app asks for:</p>
<ul>${input.scopes.map((scope) => `<li><code>${escape(scope)}</code></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize/decision">
${hidden('client_id', input.clientId)}${hidden('redirect_uri', input.redirectUri)}${hidden('state', input.state)}${hidden('company_id', String(input.company.companyId))}
<p><button class="primary" type="submit" name="decision" value="approve">Allow and Install</button>
<button type="submit" name="decision" value="deny">Cancel</button></p>
</form>`,
  );
}

export function personPage(company: Company, person: Person): string {
  const fields = [...company.fields.values()].filter((field) => person.custom[field.key] !== undefined);
  const rows = fields.map((field) => `<tr><th scope="row">${escape(field.name)}</th><td style="white-space:pre-wrap">${escape(JSON.stringify(person.custom[field.key]))}</td></tr>`).join('');
  // Note contents are shown as their HTML source: this page must never run what a note holds.
  const notes = [...company.notes.values()].filter((note) => note.person_id === person.id)
    .map((note) => `<div class="note"><p>Note ${note.id}, ${escape(note.add_time)}</p><pre style="white-space:pre-wrap">${escape(note.content)}</pre></div>`).join('');
  return page(`${person.name} (person ${person.id})`, `<p><a href="/">Company ${company.companyId}</a></p><h1>${escape(person.name)}</h1>
<p>${escape(person.emails.map((email) => email.value).join(', ') || '(no e-mail)')}</p>
<table><caption>Custom fields</caption><tbody>${rows}</tbody></table><h2>Notes</h2>${notes || '<p>None.</p>'}`);
}

export function companyPage(company: Company, baseUrl: string): string {
  const rows = [...company.persons.values()].map((person) => `<tr><th scope="row"><a href="/person/${person.id}">${person.id}</a></th><td>${escape(person.name)}</td>
<td>${escape(person.emails[0]?.value ?? '(none)')}</td><td>${[...company.notes.values()].filter((note) => note.person_id === person.id).length}</td></tr>`).join('');
  const custom = [...company.fields.values()].filter((field) => field.edit_flag && field.active_flag).map((field) => escape(`${field.name} (${field.field_type})`)).join(', ');
  return page('Pipedrive stand-in', `<h1>Pipedrive stand-in</h1><p>API base ${escape(baseUrl)}; JSON: <a href="/__admin/state">/__admin/state</a>, calls: <a href="/__admin/calls">/__admin/calls</a>.</p>
<p>Custom person fields: ${custom}</p>
<table><caption>Persons of company ${company.companyId}</caption><thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">Notes</th></tr></thead><tbody>${rows}</tbody></table>`);
}
