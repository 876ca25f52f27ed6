import { Client, Connection } from '@temporalio/client';
import { CRM_RUN_CONTACTS_IN_FLIGHT, type CrmSyncResult } from '../../../domain/crm/sync-contract.ts';
import { RESEARCH_TASK_QUEUE } from '../../../domain/research/contract.ts';
import { loadCrmConfig } from '../../../integrations/crm/config.ts';
import { createHubSpotOAuth } from '../../../integrations/hubspot/oauth.ts';
import { createLogger } from '../../../lib/logger.ts';
import { DOCUMENTED_LIMITS } from '../../../sandbox/hubspot/limits.ts';
import { SANDBOX_CLIENT_ID, SANDBOX_CLIENT_SECRET, startHubSpotSandbox, type HubSpotSandbox } from '../../../sandbox/hubspot/server.ts';
import { createWorld } from '../../../sandbox/provider-world/world.ts';
import { createAccount } from '../../../services/accounts/accounts.ts';
import { createApiKey } from '../../../services/accounts/api-keys.ts';
import { createCrm } from '../../../services/crm/crm.ts';
import { saveConnection } from '../../../services/crm/connections.ts';
import { saveCrmSettings } from '../../../services/crm/settings.ts';
import type { Orm } from '../../../db/orm.ts';
import type { BenchStack } from './bench-stack.ts';
import { asLatencyMap, candidateEmails, criticalPathMs, recordProspectCalls, type EndpointLatencies, type ProspectCalls } from './critical-path.ts';

// The CRM figures: a 50-contact CRM sync run ("Run now") at the bench's
// fixed provider and model latencies, against its lower bound: the larger of
// one contact's research path (every contact researched at once) and the
// run's HubSpot calls at HubSpot's documented rate (sandbox/hubspot/limits.ts,
// from developers.hubspot.com/docs/developer-tooling/platform/usage-guidelines:
// 110 calls per 10 s per installing account, search apart at 5 per second;
// docs/crm.md#rate-limits). The HubSpot stand-in answers at once; its request
// log gives the calls per contact and the busiest 10 s.

/** A portal of its own in the stand-in: it holds exactly the bench's contacts. */
const BENCH_PORTAL_ID = 4_000_018;
const REDIRECT_URI = 'http://127.0.0.1:9/app/api/crm/callback';

export interface CrmBenchResult {
  contacts: number;
  researched: number;
  failed: number;
  status: CrmSyncResult['status'];
  /** Contacts researched at once by the run's fan-out (domain/crm/sync-contract.ts). */
  inFlight: number;
  /** Run now → the run's workflow closed (Temporal's start and close times). */
  wallMs: number;
  /** The longest critical path among the contacts (bench/critical-path.ts): the run's bound if all ran at once. */
  researchPathMs: number;
  /** The run's HubSpot calls at the documented rate: max(general ÷ 110 per 10 s, search ÷ 5 per s). */
  hubspotBoundMs: number;
  lowerBoundMs: number;
  ratio: number;
  calls: { general: number; search: number; token: number; byKind: Record<string, number>; rateLimited: number };
  /** HubSpot calls (search included, token calls not) per researched contact. */
  callsPerContact: number;
  /** The busiest 10 s of general calls, and the busiest second of searches, against HubSpot's documented limits. */
  peakPer10s: number;
  limitPer10s: number;
  peakSearchesPerSecond: number;
  searchLimitPerSecond: number;
  /** Our own per-portal budget (integrations/hubspot/throttle.ts), below the documented limits. */
  throttle: { callsPer10s: number; searchesPerSecond: number };
  /**
   * Where the wall time went, from the run's research job rows: Run now → the first job submitted
   * (settings, properties, search, claims), first submitted → last completed, last completed → the run closed
   * (the last write-back, the summary); and each job's submitted → completed.
   */
  phases: { beforeResearchMs: number; researchMs: number; afterResearchMs: number; jobP50Ms: number; jobMaxMs: number };
}

/**
 * The HubSpot stand-in, started before the stack so that the worker gets its
 * address: the variables are set in this process's environment, which the
 * bench stack hands to the worker and the API (as `npm run dev` does).
 */
export async function startCrmBenchStandIn(): Promise<HubSpotSandbox> {
  const world = createWorld({ seed: process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined });
  const hubspot = await startHubSpotSandbox({ world, people: 0 });
  Object.assign(process.env, {
    HUBSPOT_CLIENT_ID: SANDBOX_CLIENT_ID, HUBSPOT_CLIENT_SECRET: SANDBOX_CLIENT_SECRET,
    HUBSPOT_API_BASE: hubspot.url, HUBSPOT_OAUTH_BASE: hubspot.url, HUBSPOT_APP_BASE: hubspot.url,
  });
  return hubspot;
}

async function recordCalls(stack: BenchStack, emails: string[], needed: number): Promise<ProspectCalls[]> {
  const prospects: ProspectCalls[] = [];
  for (let index = 0; index < emails.length && prospects.length < needed; index += 8) {
    const recorded = await Promise.all(emails.slice(index, index + 8).map((email) => recordProspectCalls(stack.providerUrl, email)));
    for (const calls of recorded) if (calls && prospects.length < needed) prospects.push(calls);
  }
  if (prospects.length < needed) throw new Error(`only ${prospects.length} of ${needed} prospects have every part`);
  return prospects;
}

/** The most calls inside any window of `windowMs` (a window opening at each call). */
export function peakInWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

export async function measureCrm(
  stack: BenchStack,
  hubspot: HubSpotSandbox,
  options: { contacts: number; providerLatenciesMs: EndpointLatencies; modelLatencyMs: number; log: (line: string) => void },
): Promise<CrmBenchResult> {
  const { log } = options;
  log(`CRM: recording the provider calls of ${options.contacts} prospects (sandbox without latency)…`);
  await stack.setProviderLatency({});
  const seed = process.env.SANDBOX_SEED ? Number(process.env.SANDBOX_SEED) : undefined;
  // Uncached for this part even where another part researched the same people: the cache is per account.
  const candidates = candidateEmails(options.contacts * 3, seed);
  const prospects = await recordCalls(stack, candidates, options.contacts);
  await stack.setProviderLatency(asLatencyMap(options.providerLatenciesMs));
  await stack.setModelLatency(options.modelLatencyMs);

  const { accountId, productId } = await connectBenchPortal(stack.orm, hubspot, {
    portalId: BENCH_PORTAL_ID, emails: prospects.map((prospect) => prospect.email), ownerEmail: 'bench-crm@example.com', researchLimit: options.contacts, seed,
  });
  const config = loadCrmConfig(process.env)!.hubspot!;
  const em = () => stack.orm.em.fork();

  const temporal = new Client({ connection: await Connection.connect({ address: stack.temporalAddress }) });
  try {
    const crm = createCrm({
      orm: stack.orm, temporal, env: process.env, publicUrl: stack.apiUrl, clock: () => new Date(), researchTaskQueue: RESEARCH_TASK_QUEUE, logger: createLogger('bench-crm', 'warn'),
    })!;
    const since = new Date().toISOString();
    log(`CRM: Run now, ${options.contacts} contacts, ${CRM_RUN_CONTACTS_IN_FLIGHT} researched at once…`);
    const runId = await crm.runNow(accountId, productId);
    const handle = temporal.workflow.getHandle(runId);
    const result = (await handle.result()) as CrmSyncResult;
    const description = await handle.describe();
    const wallMs = description.closeTime!.getTime() - description.startTime.getTime();

    const jobs: Array<{ submitted_ms: number; completed_ms: number }> = await em().getConnection().execute(
      `select extract(epoch from submitted_at) * 1000 as submitted_ms, extract(epoch from completed_at) * 1000 as completed_ms
       from research_job where account_id = ? and completed_at is not null`,
      [accountId],
    );
    const started = description.startTime.getTime();
    const firstSubmitted = Math.min(...jobs.map((job) => Number(job.submitted_ms)));
    const lastCompleted = Math.max(...jobs.map((job) => Number(job.completed_ms)));
    const durations = jobs.map((job) => Number(job.completed_ms) - Number(job.submitted_ms)).sort((a, b) => a - b);
    const phases = {
      beforeResearchMs: Math.round(firstSubmitted - started),
      researchMs: Math.round(lastCompleted - firstSubmitted),
      afterResearchMs: Math.round(started + wallMs - lastCompleted),
      jobP50Ms: Math.round(durations[Math.floor(durations.length / 2)] ?? NaN),
      jobMaxMs: Math.round(durations.at(-1) ?? NaN),
    };

    const { calls } = (await (await fetch(`${hubspot.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as {
      calls: Array<{ at: string; portalId: number | null; status: number; kind: string }>;
    };
    const ours = calls.filter((call) => call.portalId === BENCH_PORTAL_ID);
    const byKind: Record<string, number> = {};
    for (const call of ours) byKind[call.kind] = (byKind[call.kind] ?? 0) + 1;
    const general = ours.filter((call) => call.kind !== 'search' && call.kind !== 'oauth');
    const search = ours.filter((call) => call.kind === 'search');
    const token = ours.filter((call) => call.kind === 'oauth');

    const limits = DOCUMENTED_LIMITS;
    const researchPathMs = Math.max(...prospects.map((calls) => criticalPathMs(calls, options.providerLatenciesMs, options.modelLatencyMs)));
    const hubspotBoundMs = Math.round(Math.max((general.length * limits.generalWindowMs) / limits.general, (search.length * 1_000) / limits.searchPerSecond));
    const lowerBoundMs = Math.max(researchPathMs, hubspotBoundMs);
    const researched = result.counts.researched;
    return {
      contacts: options.contacts,
      researched,
      failed: result.counts.failed,
      status: result.status,
      inFlight: CRM_RUN_CONTACTS_IN_FLIGHT,
      wallMs,
      researchPathMs,
      hubspotBoundMs,
      lowerBoundMs,
      ratio: Math.round((wallMs / lowerBoundMs) * 100) / 100,
      calls: { general: general.length, search: search.length, token: token.length, byKind, rateLimited: ours.filter((call) => call.status === 429).length },
      callsPerContact: Math.round(((general.length + search.length) / Math.max(1, researched)) * 100) / 100,
      peakPer10s: peakInWindow(general.map((call) => Date.parse(call.at)), limits.generalWindowMs),
      limitPer10s: limits.general,
      peakSearchesPerSecond: peakInWindow(search.map((call) => Date.parse(call.at)), 1_000),
      searchLimitPerSecond: limits.searchPerSecond,
      throttle: config.limits,
      phases,
    };
  } finally {
    await temporal.connection.close();
  }
}

export function formatCrmResults(result: CrmBenchResult): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const criticalPath = Math.ceil(result.contacts / result.inFlight) * result.researchPathMs;
  const kinds = Object.entries(result.calls.byKind).map(([kind, count]) => `${kind} ${count}`).join(', ');
  return [
    `CRM sync run (Run now): ${result.contacts} contacts, ${result.inFlight} researched at once: ${result.status}, ${result.researched} researched, ${result.failed} failed`,
    `  wall ${s(result.wallMs)} against a lower bound of ${s(result.lowerBoundMs)} = ${result.ratio}× (target ≤ 1.3×); bound = max(one contact's research path ${s(result.researchPathMs)}, HubSpot calls at the documented rate ${s(result.hubspotBoundMs)})`,
    `  HubSpot calls: ${result.calls.general} general + ${result.calls.search} search = ${result.callsPerContact} per researched contact (${kinds}; token calls are not rate limited); ${result.calls.rateLimited} answered 429`,
    `  before the first job ${s(result.phases.beforeResearchMs)}, first job submitted → last completed ${s(result.phases.researchMs)}, then ${s(result.phases.afterResearchMs)} to the run's end; a job's submitted → completed p50 ${s(result.phases.jobP50Ms)}, max ${s(result.phases.jobMaxMs)}`,
    `  peak ${result.peakPer10s} calls per 10 s (documented limit ${result.limitPer10s}, our throttle ${result.throttle.callsPer10s}); peak ${result.peakSearchesPerSecond} searches per second (limit ${result.searchLimitPerSecond}, throttle ${result.throttle.searchesPerSecond})`,
    // The targets, by the figures scripts/lib/bench/figures.ts names crm.hubspot_calls_per_contact, crm.run_s and crm.critical_path_s.
    `  research critical path ceil(${result.contacts} ÷ ${result.inFlight}) × ${s(result.researchPathMs)} = ${s(criticalPath)}; wall − critical path ${s(result.wallMs - criticalPath)} (target ≤ 5 s); ${result.callsPerContact} HubSpot calls per contact (target ≤ 0.2)`,
  ].join('\n');
}

/**
 * A portal in the HubSpot stand-in holding `emails` as contacts (scores from
 * 99 down, all above the minimum), and a Growth account with a product and
 * credits for every contact connected to it through the stand-in's consent
 * and the token exchange, as test/helpers/crm-fixture.ts does (the
 * dashboard's callback stores the same). For the bench and the cluster run.
 */
export async function connectBenchPortal(
  orm: Orm,
  hubspot: HubSpotSandbox,
  options: { portalId: number; emails: string[]; ownerEmail: string; researchLimit: number; seed?: number },
): Promise<{ accountId: number; productId: number }> {
  const world = createWorld({ seed: options.seed });
  const seeded = await fetch(`${hubspot.url}/__admin/contacts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      portalId: options.portalId,
      contacts: options.emails.map((email, index) => {
        const person = world.personByEmail(email)!;
        const company = world.companies[person.company]!;
        return {
          email: person.email, firstname: person.firstName, lastname: person.lastName, jobtitle: person.title,
          company: company.name, website: `https://${company.domain}`, hubspotscore: 99 - Math.floor(index / 2),
        };
      }),
    }),
  });
  if (seeded.status !== 201) throw new Error(`seeding the HubSpot stand-in answered ${seeded.status}: ${await seeded.text()}`);

  const em = () => orm.em.fork();
  const account = await createAccount(em(), { ownerEmail: options.ownerEmail, plan: 'growth', language: 'en' }, new Date());
  await em().getConnection().execute('update account set credit_limit = 10000000 where id = ?', [account.id]);
  await createApiKey(em(), {
    accountId: account.id,
    productContext: { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['pipeline forecasting', 'CRM sync'], targetCustomers: ['sales leaders', 'revenue operations'], productUrl: null },
  });
  const [{ id: productId }]: Array<{ id: number }> = await em().getConnection().execute('select id from product_context where account_id = ?', [account.id]);
  const config = loadCrmConfig(process.env)!;
  const oauth = createHubSpotOAuth(config.hubspot!);
  const approved = await fetch(
    `${hubspot.url}/__admin/approve?portal_id=${options.portalId}&authorize_url=${encodeURIComponent(oauth.authorizeUrl({ state: 'bench', redirectUri: REDIRECT_URI, codeChallenge: null }))}`,
    { redirect: 'manual' },
  );
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const grant = await oauth.exchangeCode({ code, redirectUri: REDIRECT_URI, codeVerifier: null });
  await saveConnection(em(), config.tokenKey, { accountId: account.id, provider: 'hubspot', grant, connectedBy: options.ownerEmail, now: new Date() });
  await saveCrmSettings(em(), account.id, productId, {
    cadence: 'daily', hourUtc: 8, scoreProperty: 'hubspotscore', minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: options.researchLimit,
    chatWebhookUrl: null, digestEnabled: true, digestEmail: null, active: true,
  }, new Date());
  return { accountId: account.id, productId };
}
