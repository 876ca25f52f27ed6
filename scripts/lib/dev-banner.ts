import type { RoleProcess } from './role-processes.ts';

export interface DevBannerFacts {
  apiUrl: string;
  /** The stand-ins started or reused, by name, with their base URLs. */
  sandboxUrls: Record<string, string>;
  temporalUiUrl: string | null;
  temporalAddress: string;
  databaseUrl: string;
  /** Jaeger's address when `DEV_JAEGER=1` started it, else null. */
  jaegerUrl?: string | null;
  /** The worker processes (the API has its own line at the top). */
  workers: RoleProcess[];
  /** The environment, for what real services are configured instead of the stand-ins. */
  env: NodeJS.ProcessEnv;
}

/**
 * `npm run dev`'s Ready text: what a person opens first (API, dashboard,
 * Temporal UI, database), then the stand-ins, then one line per worker process.
 */
export function devBanner(facts: DevBannerFacts): string {
  const { apiUrl, sandboxUrls: urls, env } = facts;
  const sandboxes = Object.entries(urls).map(([name, url]) => `${name} ${url}`).join(', ') || '(none: real services configured)';
  return `Ready.
  API          ${apiUrl}   (probes: /livez, /readyz; health: /healthz, metrics: /metrics, OpenAPI: /openapi.json)
  Dashboard    ${apiUrl}/app   (sign up there; the e-mails land in the mail inbox below)
  Temporal UI  ${facts.temporalUiUrl ?? `(external Temporal at ${facts.temporalAddress})`}
  Database     ${facts.databaseUrl.replace(/:[^:@/]+@/, ':***@')}
  Jaeger       ${facts.jaegerUrl ? `${facts.jaegerUrl}   (traces; query API /api/traces/<trace id>; a build without UI assets shows a placeholder page, docs/operations.md#traces)` : '(off: DEV_JAEGER=1 runs it)'}
  Mail inbox   ${urls['mail-sandbox'] ?? `(real SMTP server ${env.SMTP_HOST})`}
  HubSpot      ${urls['hubspot-sandbox'] ?? `(HubSpot at ${env.HUBSPOT_API_BASE ?? 'https://api.hubapi.com'})`}   (the stand-in's contacts; connect it from a product's CRM page)
  Pipedrive    ${urls['pipedrive-sandbox'] ?? (env.PIPEDRIVE_CLIENT_ID ? '(a real Pipedrive app)' : '(not configured)')}   (the stand-in's persons; or connect it instead)
  Salesforce   ${urls['salesforce-sandbox'] ?? (env.SALESFORCE_CLIENT_ID ? '(a real Salesforce app)' : '(not configured)')}   (the stand-in's org; or connect it instead)
  Chat hooks   ${urls['chat-sandbox'] ? `${urls['chat-sandbox']}   (webhook URL: ${urls['chat-sandbox']}/services/T0/B0/any)` : '(none)'}
  Webhooks     ${urls['webhook-receiver'] ? `${urls['webhook-receiver']}   (endpoint URL for the Webhooks page: ${urls['webhook-receiver']}/hooks/dev)` : '(none)'}
  Sandboxes    ${sandboxes}
Workers (a process per role; one that exits is started again):
${facts.workers.map((role) => `  ${role.name.padEnd(21)}${role.probeUrl.replace(/\/readyz$/, '')}   (probes: /livez, /readyz; metrics: /metrics)`).join('\n')}
Create a key:  npm run --silent admin -- account create --email you@example.com --plan growth
               npm run --silent admin -- key create --account <account_id> --product-name "…" --product-description "…"
Press Ctrl-C to stop everything.`;
}
