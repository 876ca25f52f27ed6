// The stand-in's pages: HubSpot's consent screen (choose an account, see the
// scopes, connect or cancel) and a page a developer reads: the portal's
// contacts with the app's properties, and each contact with its notes.
import { crmPage, escapeHtml } from '../plain-http.ts';
import type { Contact, Portal } from './portal.ts';

const page = (title: string, body: string) => crmPage(title, body, { primaryColour: '#0b4f6c' });

export function consentPage(input: {
  error?: string;
  portal?: Portal;
  scopes?: string[];
  optionalScopes?: string[];
  clientId?: string;
  redirectUri?: string;
  state?: string;
}): string {
  if (input.error) return page('Authorization error', `<h1>Authorization error</h1><p role="alert">${escapeHtml(input.error)}</p>`);
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
  const scopes = [...(input.scopes ?? []), ...(input.optionalScopes ?? [])];
  return page(
    'Connect an app to HubSpot (sandbox)',
    `<h1>Connect the app to your HubSpot account</h1>
<p>HubSpot stand-in for development. The app asks for these permissions:</p>
<ul>${scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize/decision">
<label for="portal">HubSpot account</label>
<select id="portal" name="portal_id"><option value="${input.portal!.portalId}">Portal ${input.portal!.portalId} (${escapeHtml(input.portal!.userEmail)})</option></select>
${hidden('client_id', input.clientId ?? '')}${hidden('redirect_uri', input.redirectUri ?? '')}${hidden('state', input.state ?? '')}${hidden('scope', scopes.join(' '))}
<p><button class="primary" type="submit" name="decision" value="approve">Connect app</button>
<button type="submit" name="decision" value="deny">Cancel</button></p>
</form>`,
  );
}

export function portalPage(portals: Portal[], baseUrl: string): string {
  const sections = portals.map((portal) => {
    const appProperties = [...portal.properties.values()].filter((property) => !property.hubspotDefined && !property.archived);
    const rows = [...portal.contacts.values()]
      .map((contact) => {
        const own = appProperties.filter((property) => contact.properties[property.name] !== undefined && property.name.endsWith('_status'));
        return `<tr><th scope="row"><a href="/contacts/${portal.portalId}/record/0-1/${contact.id}">${contact.id}</a></th><td>${escapeHtml(name(contact))}</td>
<td>${escapeHtml(contact.properties.email ?? '(none)')}</td><td>${escapeHtml(contact.properties.hubspotscore ?? '')}</td>
<td>${own.map((property) => `${escapeHtml(property.name)}: ${escapeHtml(contact.properties[property.name]!)}`).join('<br>')}</td>
<td>${[...portal.notes.values()].filter((note) => note.contactIds.includes(contact.id)).length}</td></tr>`;
      })
      .join('');
    return `<h2>Portal ${portal.portalId}</h2>
<p>App property groups: ${[...portal.groups.values()].filter((group) => group.name.startsWith('pe_')).map((group) => escapeHtml(`${group.name} (${group.label})`)).join(', ') || 'none yet'}</p>
<table><caption>Contacts</caption><thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">HubSpot score</th><th scope="col">App status</th><th scope="col">Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
  });
  return page(
    'HubSpot stand-in',
    `<h1>HubSpot stand-in</h1><p>API base ${escapeHtml(baseUrl)}; JSON: <a href="/__admin/state">/__admin/state</a>, calls: <a href="/__admin/calls">/__admin/calls</a>.</p>${sections.join('')}`,
  );
}

export function contactPage(portal: Portal, contact: Contact): string {
  const properties = Object.entries(contact.properties)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `<tr><th scope="row">${escapeHtml(key)}</th><td style="white-space:pre-wrap">${escapeHtml(value)}</td></tr>`)
    .join('');
  // Note bodies are shown as their HTML source: this page must never run what a note holds.
  const notes = [...portal.notes.values()]
    .filter((note) => note.contactIds.includes(contact.id))
    .map((note) => `<div class="note"><p>Note ${note.id}, ${escapeHtml(note.properties.hs_timestamp ?? '')}</p><pre style="white-space:pre-wrap">${escapeHtml(note.properties.hs_note_body ?? '')}</pre></div>`)
    .join('');
  return page(
    `Contact ${contact.id}`,
    `<p><a href="/">Portal ${portal.portalId}</a></p><h1>${escapeHtml(name(contact))}</h1>
<table><caption>Properties</caption><tbody>${properties}</tbody></table><h2>Notes</h2>${notes || '<p>None.</p>'}`,
  );
}

const name = (contact: Contact) => [contact.properties.firstname, contact.properties.lastname].filter(Boolean).join(' ') || contact.properties.email || `Contact ${contact.id}`;
