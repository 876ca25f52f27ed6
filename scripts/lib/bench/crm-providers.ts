import { createHash, randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { CRM_RUN_CONTACTS_IN_FLIGHT, type CrmSyncResult } from '../../../domain/crm/sync-contract.ts';
import { RESEARCH_TASK_QUEUE } from '../../../domain/research/contract.ts';
import type { Orm } from '../../../db/orm.ts';
import { CRM_PROVIDER_LABELS, type CrmProvider } from '../../../integrations/crm/adapter.ts';
import { createLogger } from '../../../lib/logger.ts';
import {
  SANDBOX_CLIENT_ID as PIPEDRIVE_CLIENT_ID, SANDBOX_CLIENT_SECRET as PIPEDRIVE_CLIENT_SECRET, startPipedriveSandbox, type PipedriveSandbox,
} from '../../../sandbox/pipedrive/server.ts';
import { createWorld } from '../../../sandbox/provider-world/world.ts';
import {
  SANDBOX_CLIENT_ID as SALESFORCE_CLIENT_ID, SANDBOX_CLIENT_SECRET as SALESFORCE_CLIENT_SECRET, startSalesforceSandbox, type SalesforceSandbox,
} from '../../../sandbox/salesforce/server.ts';
import { createAccount } from '../../../services/accounts/accounts.ts';
import { createApiKey } from '../../../services/accounts/api-keys.ts';
import { createCrm, type Crm } from '../../../services/crm/crm.ts';
import { connectionRef, saveConnection } from '../../../services/crm/connections.ts';
import { saveCrmSettings } from '../../../services/crm/settings.ts';
import { crmAdapterOf } from '../../../services/crm/sync.ts';
import type { BenchStack } from './bench-stack.ts';
import { peakInWindow } from './crm.ts';
import { asLatencyMap, candidateEmails, criticalPathMs, recordProspectCalls, type EndpointLatencies, type ProspectCalls } from './critical-path.ts';

// The crm part's sync run for each CRM beside HubSpot (docs/benchmarks.md):
// the same 50 uncached contacts' run through the same workflow, against
// Pipedrive's and Salesforce's stand-ins, which answer at once. Each
// stand-in's request log gives the calls per researched contact (token
// calls apart) and the busiest window against the CRM's own short limit;
// the run's wall time is set against the research's critical path, as
// HubSpot's is.

const REDIRECT_URI = 'http://127.0.0.1:9/app/api/crm/callback';

export interface CrmProviderStandIns {
  pipedrive: PipedriveSandbox;
  salesforce: SalesforceSandbox;
  close(): Promise<void>;
}

export interface CrmProviderBenchResult {
  provider: CrmProvider;
  contacts: number;
  researched: number;
  failed: number;
  status: CrmSyncResult['status'];
  inFlight: number;
  wallMs: number;
  researchPathMs: number;
  /** ceil(contacts ÷ in flight) × one contact's research path: the run's bound with no CRM call at all. */
  criticalPathMs: number;
  calls: { total: number; byKind: Record<string, number>; rateLimited: number };
  callsPerContact: number;
  /** The busiest short window of calls, against the CRM's documented limit for it. */
  peak: { windowMs: number; calls: number; documentedLimit: number };
}

/**
 * Both stand-ins, holding no one yet (each run seeds its contacts), started
 * before the stack so that the worker gets their addresses through the
 * environment, as `npm run dev` gives them.
 */
export async function startCrmProviderStandIns(): Promise<CrmProviderStandIns> {
  const world = createWorld({ seed: process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined });
  const pipedrive = await startPipedriveSandbox({ world, people: 0 });
  const salesforce = await startSalesforceSandbox({ world, people: 0 });
  Object.assign(process.env, {
    PIPEDRIVE_CLIENT_ID, PIPEDRIVE_CLIENT_SECRET, PIPEDRIVE_OAUTH_BASE: pipedrive.url, PIPEDRIVE_API_BASE: pipedrive.url,
    SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET, SALESFORCE_LOGIN_BASE: salesforce.url,
  });
  return { pipedrive, salesforce, close: async () => void (await Promise.all([pipedrive.close(), salesforce.close()])) };
}

/** The contacts, scored from 99 down, in the CRM's stand-in; its lead score field as the CRM names it. */
async function seedContacts(provider: 'pipedrive' | 'salesforce', standIns: CrmProviderStandIns, emails: string[], seed: number | undefined): Promise<void> {
  const world = createWorld({ seed });
  const people = emails.map((email, index) => ({ person: world.personByEmail(email)!, score: 99 - Math.floor(index / 2) }));
  const [url, path, body] = provider === 'pipedrive'
    ? [standIns.pipedrive.url, '/__admin/persons', { persons: people.map(({ person, score }) => ({ name: `${person.firstName} ${person.lastName}`, email: person.email, values: { 'Lead score': score } })) }]
    : [standIns.salesforce.url, '/__admin/records', {
        object: 'Contact', records: people.map(({ person, score }) => ({ FirstName: person.firstName, LastName: person.lastName, Email: person.email, Title: person.title, Lead_Score__c: score })),
      }];
  const seeded = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (seeded.status !== 201) throw new Error(`seeding the ${provider} stand-in answered ${seeded.status}: ${await seeded.text()}`);
}

/** A Growth account with a product, connected through the stand-in's consent and the CRM's own token exchange (PKCE where the CRM takes it). */
async function connectAccount(orm: Orm, crm: Crm, provider: 'pipedrive' | 'salesforce', standInUrl: string, researchLimit: number): Promise<{ accountId: number; productId: number }> {
  const em = () => orm.em.fork();
  const account = await createAccount(em(), { ownerEmail: `bench-crm-${provider}@example.com`, plan: 'growth', language: 'en' }, new Date());
  await em().getConnection().execute('update account set credit_limit = 10000000 where id = ?', [account.id]);
  await createApiKey(em(), {
    accountId: account.id,
    productContext: { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['pipeline forecasting', 'CRM sync'], targetCustomers: ['sales leaders'], productUrl: null },
  });
  const [{ id: productId }]: Array<{ id: number }> = await em().getConnection().execute('select id from product_context where account_id = ?', [account.id]);
  const kit = crm.kits[provider]!;
  const verifier = kit.oauth.usesPkce ? randomBytes(48).toString('base64url') : null;
  const authorizeUrl = kit.oauth.authorizeUrl({ state: 'bench', redirectUri: REDIRECT_URI, codeChallenge: verifier ? createHash('sha256').update(verifier).digest('base64url') : null });
  const approved = await fetch(`${standInUrl}/__admin/approve?authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
  const code = new URL(approved.headers.get('location')!).searchParams.get('code');
  if (!code) throw new Error(`the ${provider} stand-in gave no code: ${approved.status} ${approved.headers.get('location')}`);
  const grant = await kit.oauth.exchangeCode({ code, redirectUri: REDIRECT_URI, codeVerifier: verifier });
  await saveConnection(em(), crm.config.tokenKey, { accountId: account.id, provider, grant, connectedBy: account.ownerEmail, now: new Date() });
  // The lead score as the CRM names it: Pipedrive's is a hash key, read from its fields like the settings page does.
  const connection = (await connectionRef(em(), account.id))!;
  const { scoreFields } = await crmAdapterOf(crm.syncDeps, connection).fieldMetadata();
  const scoreProperty = scoreFields.find((field) => field.label === 'Lead score' || field.label === 'Lead Score')?.name;
  if (!scoreProperty) throw new Error(`the ${provider} stand-in offers no Lead score field: ${JSON.stringify(scoreFields)}`);
  await saveCrmSettings(em(), account.id, productId, {
    cadence: 'daily', hourUtc: 8, scoreProperty, minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit,
    chatWebhookUrl: null, digestEnabled: true, digestEmail: null, active: true,
  }, new Date());
  return { accountId: account.id, productId };
}

interface StandInCall {
  at: string;
  status: number;
  kind: string;
}

const callsOf = async (provider: 'pipedrive' | 'salesforce', standIns: CrmProviderStandIns, since: string): Promise<StandInCall[]> =>
  provider === 'pipedrive'
    ? standIns.pipedrive.calls().filter((call) => call.at >= since)
    : ((await (await fetch(`${standIns.salesforce.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as { calls: StandInCall[] }).calls;

/** Each CRM's documented short limit: Pipedrive 80 requests per 2 s on its smallest plan; Salesforce has no per-second limit, only 25 long requests at once and 24-hour allowances: its peak second is shown against our pace. */
const SHORT_LIMITS: Record<'pipedrive' | 'salesforce', { windowMs: number; documentedLimit: (env: NodeJS.ProcessEnv) => number }> = {
  pipedrive: { windowMs: 2_000, documentedLimit: () => 80 },
  salesforce: { windowMs: 1_000, documentedLimit: (env) => Number(env.SALESFORCE_MAX_CALLS_PER_SECOND || 10) },
};

export async function measureCrmProvider(
  stack: BenchStack,
  standIns: CrmProviderStandIns,
  provider: 'pipedrive' | 'salesforce',
  options: { contacts: number; providerLatenciesMs: EndpointLatencies; modelLatencyMs: number; log: (line: string) => void },
): Promise<CrmProviderBenchResult> {
  const { log } = options;
  const label = CRM_PROVIDER_LABELS[provider];
  log(`CRM (${label}): recording the provider calls of ${options.contacts} prospects (sandbox without latency)…`);
  await stack.setProviderLatency({});
  const seed = process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined;
  const prospects: ProspectCalls[] = [];
  for (const email of candidateEmails(options.contacts * 3, seed)) {
    if (prospects.length >= options.contacts) break;
    const calls = await recordProspectCalls(stack.providerUrl, email);
    if (calls) prospects.push(calls);
  }
  if (prospects.length < options.contacts) throw new Error(`only ${prospects.length} of ${options.contacts} prospects have every part`);
  await stack.setProviderLatency(asLatencyMap(options.providerLatenciesMs));
  await stack.setModelLatency(options.modelLatencyMs);

  const temporal = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
  try {
    const crm = createCrm({
      orm: stack.orm, temporal, env: process.env, publicUrl: stack.apiUrl, clock: () => new Date(), researchTaskQueue: RESEARCH_TASK_QUEUE, logger: createLogger('bench-crm', 'warn'),
    })!;
    await seedContacts(provider, standIns, prospects.map((prospect) => prospect.email), seed);
    const { accountId, productId } = await connectAccount(stack.orm, crm, provider, provider === 'pipedrive' ? standIns.pipedrive.url : standIns.salesforce.url, options.contacts);
    const since = new Date().toISOString();
    log(`CRM (${label}): Run now, ${options.contacts} contacts, ${CRM_RUN_CONTACTS_IN_FLIGHT} researched at once…`);
    const handle = temporal.workflow.getHandle(await crm.runNow(accountId, productId));
    const result = (await handle.result()) as CrmSyncResult;
    const description = await handle.describe();
    const wallMs = description.closeTime!.getTime() - description.startTime.getTime();

    const calls = (await callsOf(provider, standIns, since)).filter((call) => !['oauth', 'admin', 'page'].includes(call.kind));
    const byKind: Record<string, number> = {};
    for (const call of calls) byKind[call.kind] = (byKind[call.kind] ?? 0) + 1;
    const researchPathMs = Math.max(...prospects.map((each) => criticalPathMs(each, options.providerLatenciesMs, options.modelLatencyMs)));
    const limit = SHORT_LIMITS[provider];
    return {
      provider,
      contacts: options.contacts,
      researched: result.counts.researched,
      failed: result.counts.failed,
      status: result.status,
      inFlight: CRM_RUN_CONTACTS_IN_FLIGHT,
      wallMs,
      researchPathMs,
      criticalPathMs: Math.ceil(options.contacts / CRM_RUN_CONTACTS_IN_FLIGHT) * researchPathMs,
      calls: { total: calls.length, byKind, rateLimited: calls.filter((call) => call.status === 429).length },
      callsPerContact: Math.round((calls.length / Math.max(1, result.counts.researched)) * 100) / 100,
      peak: { windowMs: limit.windowMs, calls: peakInWindow(calls.map((call) => Date.parse(call.at)), limit.windowMs), documentedLimit: limit.documentedLimit(process.env) },
    };
  } finally {
    await temporal.connection.close();
  }
}

export function formatCrmProviderResults(result: CrmProviderBenchResult): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const label = CRM_PROVIDER_LABELS[result.provider];
  const kinds = Object.entries(result.calls.byKind).map(([kind, count]) => `${kind} ${count}`).join(', ');
  return [
    `CRM sync run on ${label} (Run now): ${result.contacts} contacts, ${result.inFlight} researched at once: ${result.status}, ${result.researched} researched, ${result.failed} failed`,
    `  wall ${s(result.wallMs)}; research critical path ceil(${result.contacts} ÷ ${result.inFlight}) × ${s(result.researchPathMs)} = ${s(result.criticalPathMs)}; wall − critical path ${s(result.wallMs - result.criticalPathMs)}`,
    `  ${label} calls: ${result.calls.total} = ${result.callsPerContact} per researched contact (${kinds}; token calls apart); ${result.calls.rateLimited} answered 429; peak ${result.peak.calls} in ${result.peak.windowMs / 1000} s (limit ${result.peak.documentedLimit})`,
  ].join('\n');
}
