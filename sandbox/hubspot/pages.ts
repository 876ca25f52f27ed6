// The stand-in's pages: HubSpot's consent screen (choose an account, see the
// scopes, connect or cancel) and a page a developer reads: the portal's
// contacts with the app's properties, and each contact with its notes.
import type { Contact, Portal } from './portal.ts';

const escape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#1a1a1a;max-width:70rem}table{border-collapse:collapse}td,th{border:1px solid #888;padding:.25rem .5rem;text-align:left;vertical-align:top}
button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}.primary{background:#0b4f6c;color:#fff;border:0}.note{border:1px solid #888;padding:.5rem;margin:.5rem 0}</style>
</head><body><main>${body}</main></body></html>`;
}

export function consentPage(input: {
  error?: string;
  portal?: Portal;
  scopes?: string[];
  optionalScopes?: string[];
  clientId?: string;
  redirectUri?: string;
  state?: string;
}): string {
  if (input.error) return page('Authorization error', `<h1>Authorization error</h1><p role="alert">${escape(input.error)}</p>`);
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;
  const scopes = [...(input.scopes ?? []), ...(input.optionalScopes ?? [])];
  return page(
    'Connect an app to HubSpot (sandbox)',
    `<h1>Connect the app to your HubSpot account</h1>
<p>HubSpot stand-in for development. The app asks for these permissions:</p>
<ul>${scopes.map((scope) => `<li><code>${escape(scope)}</code></li>`).join('')}</ul>
<form method="post" action="/oauth/authorize/decision">
<label for="portal">HubSpot account</label>
<select id="portal" name="portal_id"><option value="${input.portal!.portalId}">Portal ${input.portal!.portalId} (${escape(input.portal!.userEmail)})</option></select>
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
        return `<tr><th scope="row"><a href="/contacts/${portal.portalId}/record/0-1/${contact.id}">${contact.id}</a></th><td>${escape(name(contact))}</td>
<td>${escape(contact.properties.email ?? '(none)')}</td><td>${escape(contact.properties.hubspotscore ?? '')}</td>
<td>${own.map((property) => `${escape(property.name)}: ${escape(contact.properties[property.name]!)}`).join('<br>')}</td>
<td>${[...portal.notes.values()].filter((note) => note.contactIds.includes(contact.id)).length}</td></tr>`;
      })
      .join('');
    return `<h2>Portal ${portal.portalId}</h2>
<p>App property groups: ${[...portal.groups.values()].filter((group) => group.name.startsWith('pe_')).map((group) => escape(`${group.name} (${group.label})`)).join(', ') || 'none yet'}</p>
<table><caption>Contacts</caption><thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">E-mail</th><th scope="col">HubSpot score</th><th scope="col">App status</th><th scope="col">Notes</th></tr></thead><tbody>${rows}</tbody></table>`;
  });
  return page(
    'HubSpot stand-in',
    `<h1>HubSpot stand-in</h1><p>API base ${escape(baseUrl)}; JSON: <a href="/__admin/state">/__admin/state</a>, calls: <a href="/__admin/calls">/__admin/calls</a>.</p>${sections.join('')}`,
  );
}

export function contactPage(portal: Portal, contact: Contact): string {
  const properties = Object.entries(contact.properties)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `<tr><th scope="row">${escape(key)}</th><td style="white-space:pre-wrap">${escape(value)}</td></tr>`)
    .join('');
  // Note bodies are shown as their HTML source: this page must never run what a note holds.
  const notes = [...portal.notes.values()]
    .filter((note) => note.contactIds.includes(contact.id))
    .map((note) => `<div class="note"><p>Note ${note.id}, ${escape(note.properties.hs_timestamp ?? '')}</p><pre style="white-space:pre-wrap">${escape(note.properties.hs_note_body ?? '')}</pre></div>`)
    .join('');
  return page(
    `Contact ${contact.id}`,
    `<p><a href="/">Portal ${portal.portalId}</a></p><h1>${escape(name(contact))}</h1>
<table><caption>Properties</caption><tbody>${properties}</tbody></table><h2>Notes</h2>${notes || '<p>None.</p>'}`,
  );
}

const name = (contact: Contact) => [contact.properties.firstname, contact.properties.lastname].filter(Boolean).join(' ') || contact.properties.email || `Contact ${contact.id}`;
