// `npm run bench`: the whole system on the sandboxes (PostgreSQL, Temporal dev
// server, provider world, model sandbox, the worker and the API as processes)
// with fixed provider and model latencies, measured as a client sees it over
// HTTP. Prints one table; writes bench/results/bench.json and overhead.svg.
// Nothing is asserted: figures are printed (docs/benchmarks.md).
//
//   --only overhead,cache,status,memory   parts to run (default: all)
//   --quick                               fewer jobs everywhere (~3 min), for a smoke run
//   --levels 1,50,200                     jobs in flight for the overhead part
//   --overhead-jobs N                     jobs per level (default: max(20, 2 × in flight))
//   --overhead-poll-ms wait|N             how the client watches its jobs: `?wait=10` long polls, woken
//                                         when the job ends (default), or plain GETs N ms apart; the
//                                         table's ratio is read from the job row either way
//   --provider-latency-ms N               one latency for every provider endpoint (default: 300–800 ms per endpoint)
//   --model-latency-ms N                  per model call (default 1500)
//   --cache-jobs N --cache-concurrency N  cache-hit part (default 300 jobs, 1 in flight)
//   --status-seconds N --status-connections N   status part (default 10 s, 64 connections)
//   --memory-jobs N --memory-first N      memory part (default 5000 jobs, first reading after 500)
//   --dashboard-jobs N                    jobs on the dashboard part's account (default 10000); 200 requests per call
//   --webhook-levels 1,50                 jobs in flight for the webhook latency part (jobs per level: max(20, 2 × in flight))
//   --list-rows N                         rows of the lists part's list of uncached prospects (default 200)
//   --mcp-jobs N --mcp-cached N           mcp part: uncached research_prospect jobs (default 10), cache hits (default 50)
//   --fairness-scale F                    the fairness part's large account as a fraction of the full one (default 1: 300 API jobs
//                                         + 500 rows; 9 others × 5 API jobs + 20 rows); run once with fairness on, once off
//   --fairness-modes on,off               which of the two fairness runs to make (default both)
//   --crm-contacts N                      contacts of the crm part's sync run (default 50, the settings' maximum)
//   --tracing-jobs N --tracing-in-flight N   tracing part: uncached jobs with tracing off, then on (default 100 at 50; --quick 30 at 20)
//   --temporal-fsync                      keep the dev server's fsync per history event
//   --temporal-config k=v,k=v             dynamic config of the dev server over the project's defaults
//                                         (e.g. system.enableActivityEagerExecution=false, to measure without it)
//   --json FILE                           also write every printed figure to FILE, flat, by stable dotted names
//   --keep                                keep the work directory (logs, data)
// BENCH_CPU_PROF=1 runs the worker and the API with --cpu-prof (profiles in <work dir>/profiles; add --keep).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startBenchStack } from './lib/bench/bench-stack.ts';
import { measureCacheHits } from './lib/bench/cache-hit.ts';
import { measureDashboard } from './lib/bench/dashboard.ts';
import { buildDashboard } from './lib/dashboard-build.ts';
import { startMailSandbox } from '../sandbox/mail/mail-sandbox.ts';
import { candidateEmails, DEFAULT_MODEL_LATENCY_MS, DEFAULT_PROVIDER_LATENCIES_MS, type EndpointLatencies } from './lib/bench/critical-path.ts';
import { measureMemory } from './lib/bench/memory.ts';
import { measureOverhead } from './lib/bench/overhead.ts';
import { formatTable, formatTimeline, overheadChartSvg, TARGETS, type BenchResults } from './lib/bench/report.ts';
import { measureStatusEndpoint } from './lib/bench/status-endpoint.ts';
import { formatWebhookResults, measureWebhooks, type WebhookBenchResult } from './lib/bench/webhooks.ts';
import { formatListResults, measureLists, type ListBenchResult } from './lib/bench/lists.ts';
import { measureMcpCached, measureMcpUncached, type McpCachedResult, type McpUncachedResult } from './lib/bench/mcp.ts';
import { fairnessFigures, formatFairnessResults, measureFairness, type FairnessBenchResult, type FairnessModeResult, type FairnessSize } from './lib/bench/fairness.ts';
import { formatCrmResults, measureCrm, startCrmBenchStandIn, type CrmBenchResult } from './lib/bench/crm.ts';
import { formatCrmProviderResults, measureCrmProvider, startCrmProviderStandIns, type CrmProviderBenchResult } from './lib/bench/crm-providers.ts';
import { startReceiverProcess } from './lib/bench/receiver-process.ts';
import { ROOT } from './lib/local-services.ts';
import { figuresJson, flattenFigures, namedFigures } from './lib/bench/figures.ts';
import { formatTracingResults, measureTracing, type TracingBenchResult } from './lib/bench/tracing.ts';

const PARTS = ['overhead', 'cache', 'status', 'memory', 'dashboard', 'webhooks', 'lists', 'crm', 'mcp', 'fairness', 'tracing'] as const;
const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    levels: { type: 'string' },
    'overhead-jobs': { type: 'string' },
    'overhead-poll-ms': { type: 'string' },
    'provider-latency-ms': { type: 'string' },
    'model-latency-ms': { type: 'string' },
    'cache-jobs': { type: 'string' },
    'cache-concurrency': { type: 'string' },
    'status-seconds': { type: 'string' },
    'status-connections': { type: 'string' },
    'memory-jobs': { type: 'string' },
    'memory-first': { type: 'string' },
    'dashboard-jobs': { type: 'string' },
    'webhook-levels': { type: 'string' },
    'list-rows': { type: 'string' },
    'mcp-jobs': { type: 'string' },
    'mcp-cached': { type: 'string' },
    'crm-contacts': { type: 'string' },
    'fairness-scale': { type: 'string' },
    'fairness-modes': { type: 'string' },
    'tracing-jobs': { type: 'string' },
    'tracing-in-flight': { type: 'string' },
    'temporal-fsync': { type: 'boolean', default: false },
    'temporal-config': { type: 'string' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const quick = flags.quick;
const number = (name: keyof typeof flags, fallback: number) => (flags[name] === undefined ? fallback : Number(flags[name]));
const parts = new Set((flags.only ?? PARTS.join(',')).split(',').map((part) => part.trim()));
for (const part of parts) if (!(PARTS as readonly string[]).includes(part)) throw new Error(`--only: unknown part ${part} (${PARTS.join(', ')})`);
const levels = (flags.levels ?? '1,50,200').split(',').map(Number);
const providerLatencies: EndpointLatencies = flags['provider-latency-ms'] === undefined
  ? DEFAULT_PROVIDER_LATENCIES_MS
  : (Object.fromEntries(Object.keys(DEFAULT_PROVIDER_LATENCIES_MS).map((name) => [name, Number(flags['provider-latency-ms'])])) as EndpointLatencies);
const settings = {
  parts: [...parts],
  quick,
  levels,
  overheadJobsAt: (inFlight: number) => number('overhead-jobs', quick ? Math.max(5, inFlight) : Math.max(20, 2 * inFlight)),
  overheadPollMs: flags['overhead-poll-ms'] === undefined || flags['overhead-poll-ms'] === 'wait' ? undefined : number('overhead-poll-ms', 1_000),
  providerLatenciesMs: providerLatencies,
  modelLatencyMs: number('model-latency-ms', DEFAULT_MODEL_LATENCY_MS),
  cacheJobs: number('cache-jobs', quick ? 100 : 300),
  cacheConcurrency: number('cache-concurrency', 1),
  statusSeconds: number('status-seconds', quick ? 5 : 10),
  statusConnections: number('status-connections', 64),
  memoryJobs: number('memory-jobs', quick ? 1_000 : 5_000),
  memoryFirst: number('memory-first', quick ? 100 : 500),
  memoryConcurrency: 16,
  dashboardJobs: number('dashboard-jobs', quick ? 2_000 : 10_000),
  dashboardRequests: quick ? 50 : 200,
  temporalFsync: flags['temporal-fsync'],
  temporalDynamicConfig: Object.fromEntries(
    (flags['temporal-config'] ?? '').split(',').filter(Boolean).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  ),
};

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
// The dashboard part signs up through the e-mailed link: the API's mail goes to an SMTP stand-in here.
const mail = parts.has('dashboard') ? await startMailSandbox({ smtpPort: 0, httpPort: 0 }) : null;
if (mail) {
  await buildDashboard();
  Object.assign(process.env, { SMTP_HOST: mail.host, SMTP_PORT: String(mail.smtpPort), DASHBOARD_MODE: 'dist' });
}
// The webhook part's receiver, a process of its own on loopback: the worker is told it may deliver there (development allowance).
const receiver = parts.has('webhooks') ? await startReceiverProcess() : null;
if (receiver) process.env.ALLOW_PRIVATE_HOSTS = '127.0.0.1';
// The crm part's HubSpot stand-in runs here; the worker gets its address through the environment.
const hubspotStandIn = parts.has('crm') ? await startCrmBenchStandIn() : null;
// And Pipedrive's and Salesforce's: the same run against each CRM.
const providerStandIns = parts.has('crm') ? await startCrmProviderStandIns() : null;
const stack = await startBenchStack({ log, temporalFsync: settings.temporalFsync, temporalDynamicConfig: settings.temporalDynamicConfig });
let webhookResults: WebhookBenchResult | null = null;
let listResults: ListBenchResult | null = null;
const mcpResults: { uncached?: McpUncachedResult; cached?: McpCachedResult } = {};
let fairnessResults: FairnessBenchResult | null = null;
let crmResults: CrmBenchResult | null = null;
const crmProviderResults: CrmProviderBenchResult[] = [];
let tracingResults: TracingBenchResult | null = null;
const results: BenchResults = {};
try {
  // Each part has its own account, hence its own cache: one person serves the parts that need a cached job.
  const [cachedEmail] = candidateEmails(1);
  if (parts.has('overhead')) {
    results.overhead = await measureOverhead(stack, {
      levels,
      jobsAt: settings.overheadJobsAt,
      providerLatenciesMs: settings.providerLatenciesMs,
      modelLatencyMs: settings.modelLatencyMs,
      warmupJobs: 4,
      pollMs: settings.overheadPollMs,
      log,
    });
  }
  if (parts.has('lists')) {
    // A list of uncached prospects beside the API's own jobs, at the same fixed latencies.
    listResults = await measureLists(stack, {
      rows: number('list-rows', quick ? 40 : 200),
      apiJobs: quick ? 6 : 20,
      apiInFlight: 2,
      providerLatenciesMs: settings.providerLatenciesMs,
      modelLatencyMs: settings.modelLatencyMs,
      log,
    });
  }
  if (parts.has('fairness')) {
    // One account's burst beside nine small accounts, on this stack (fairness on), then on a second one with it off.
    const scale = number('fairness-scale', quick ? 0.2 : 1);
    const sized = (full: number) => Math.max(1, Math.round(full * scale));
    // Only the large account shrinks: the small ones' work is small already.
    const size: FairnessSize = { bigApiJobs: sized(300), bigListRows: sized(500), smallAccounts: 9, smallApiJobs: 5, smallListRows: 20 };
    const fairnessOptions = { size, providerLatenciesMs: settings.providerLatenciesMs, modelLatencyMs: settings.modelLatencyMs, log };
    const modes = new Set((flags['fairness-modes'] ?? 'on,off').split(',').map((mode) => mode.trim()));
    const on = modes.has('on') ? await measureFairness(stack, { ...fairnessOptions, isFairnessOn: true }) : null;
    let off: FairnessModeResult | null = null;
    if (modes.has('off')) {
      const offStack = await startBenchStack({ log, temporalFsync: settings.temporalFsync, temporalDynamicConfig: { ...settings.temporalDynamicConfig, 'matching.enableFairness': 'false' } });
      try {
        off = await measureFairness(offStack, { ...fairnessOptions, isFairnessOn: false });
      } finally {
        await offStack.stop(false);
      }
    }
    fairnessResults = { size, on, off };
  }
  if (hubspotStandIn) {
    // A sync run of uncached contacts at the same fixed latencies, against HubSpot's documented limits.
    crmResults = await measureCrm(stack, hubspotStandIn, {
      contacts: number('crm-contacts', 50),
      providerLatenciesMs: settings.providerLatenciesMs,
      modelLatencyMs: settings.modelLatencyMs,
      log,
    });
  }
  for (const provider of providerStandIns ? (['pipedrive', 'salesforce'] as const) : []) {
    crmProviderResults.push(await measureCrmProvider(stack, providerStandIns!, provider, {
      contacts: number('crm-contacts', 50),
      providerLatenciesMs: settings.providerLatenciesMs,
      modelLatencyMs: settings.modelLatencyMs,
      log,
    }));
  }
  if (parts.has('mcp')) {
    // AI agents through /mcp (docs/mcp.md): uncached prospects at the same fixed latencies, with the default max_wait_seconds.
    mcpResults.uncached = await measureMcpUncached(stack, {
      emails: candidateEmails(1 + number('mcp-jobs', quick ? 3 : 10)).slice(1),
      providerLatenciesMs: settings.providerLatenciesMs,
      modelLatencyMs: settings.modelLatencyMs,
      log,
    });
  }
  // The remaining parts measure cache hits and reads: no provider latency needed.
  await stack.setProviderLatency({});
  await stack.setModelLatency(0);
  if (parts.has('cache')) {
    log(`Cache hits: ${settings.cacheJobs} jobs, ${settings.cacheConcurrency} in flight…`);
    results.cacheHits = await measureCacheHits(stack, { email: cachedEmail, jobs: settings.cacheJobs, concurrency: settings.cacheConcurrency, warmup: 20 });
  }
  if (parts.has('mcp')) {
    mcpResults.cached = await measureMcpCached(stack, { emails: candidateEmails(1 + number('mcp-cached', quick ? 20 : 50)).slice(1), log });
  }
  if (parts.has('status')) {
    log(`Status endpoint: ${settings.statusConnections} connections for ${settings.statusSeconds} s…`);
    results.status = await measureStatusEndpoint(stack, { email: cachedEmail, connections: settings.statusConnections, durationSeconds: settings.statusSeconds });
  }
  if (mail) {
    results.dashboard = await measureDashboard(stack, mail, { jobs: settings.dashboardJobs, requests: settings.dashboardRequests, log });
  }
  if (receiver) {
    const webhookLevels = (flags['webhook-levels'] ?? '1,50').split(',').map(Number);
    webhookResults = await measureWebhooks(stack, receiver, { email: cachedEmail, levels: webhookLevels, jobsAt: (inFlight) => (quick ? Math.max(5, inFlight) : Math.max(20, 2 * inFlight)), clientJobs: quick ? 10 : 30, log });
  }
  if (parts.has('memory')) {
    log(`Memory: ${settings.memoryJobs} cache-hit jobs, ${settings.memoryConcurrency} in flight, first reading after ${settings.memoryFirst}…`);
    results.memory = await measureMemory(stack, { email: cachedEmail, firstAt: settings.memoryFirst, total: settings.memoryJobs, concurrency: settings.memoryConcurrency, log });
  }
  if (parts.has('tracing')) {
    // Last: it leaves the API and the workers running with tracing on. Uncached jobs, with the providers and the model answering at once.
    tracingResults = await measureTracing(stack, {
      jobs: number('tracing-jobs', quick ? 30 : 100),
      inFlight: number('tracing-in-flight', quick ? 20 : 50),
      warmupJobs: 4,
      log,
    });
  }

  // Other work on the machine skews every figure: say how busy it was.
  const loadAverage = loadavg().map((v) => Math.round(v * 100) / 100);
  const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? null, node: process.version, loadAverage };
  const latencyNote = `providers ${Math.min(...Object.values(providerLatencies))}–${Math.max(...Object.values(providerLatencies))} ms per endpoint, model ${settings.modelLatencyMs} ms per call`;
  const table = formatTable(results);
  const timelines = (results.overhead ?? []).map((level) => formatTimeline(level, settings.modelLatencyMs));
  process.stdout.write(
    `${table}\n${results.overhead ? `sandbox latencies (fixed): ${latencyNote}; ratio = submitted → completed on the job row ÷ the job's critical path\nwhere the time went (means of each level's last 20 jobs, Temporal history):\n${timelines.join('\n')}\n` : ''}${webhookResults ? formatWebhookResults(webhookResults) : ''}${listResults ? `${formatListResults(listResults)}\n` : ''}${mcpResults.uncached && mcpResults.cached ? `MCP: cached research_prospect p95 ${mcpResults.cached.callMs.p95} ms (target ≤ 150); uncached: calls to complete p95 ${mcpResults.uncached.callsToComplete.p95} (target 1), longest gap between progress ${mcpResults.uncached.progressGapMs.max} ms (≤ 5,000)\n` : ''}${fairnessResults ? `${formatFairnessResults(fairnessResults)}\n` : ''}${crmResults ? `${formatCrmResults(crmResults)}\n` : ''}${crmProviderResults.map((each) => `${formatCrmProviderResults(each)}\n`).join('')}${tracingResults ? `${formatTracingResults(tracingResults)}\n` : ''}load average at the end (1/5/15 min) ${loadAverage.join(' / ')} on ${machine.cpus} cores${settings.temporalFsync ? '' : '; Temporal dev server without fsync'}${Object.keys(settings.temporalDynamicConfig).length ? `; dev server dynamic config over the defaults: ${Object.entries(settings.temporalDynamicConfig).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}\n`,
  );

  const resultsDir = join(ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const measuredAt = new Date().toISOString();
  const { overheadJobsAt, ...plainSettings } = settings;
  const json = {
    measuredAt,
    machine,
    settings: { ...plainSettings, overheadJobs: Object.fromEntries(levels.map((level) => [level, overheadJobsAt(level)])), temporalSqlitePragmas: stack.temporalSqlitePragmas },
    targets: TARGETS,
    results: { ...results, ...(webhookResults ? { webhooks: webhookResults } : {}), ...(listResults ? { lists: listResults } : {}), ...(mcpResults.uncached || mcpResults.cached ? { mcp: mcpResults } : {}), ...(fairnessResults ? { fairness: fairnessResults } : {}), ...(crmResults ? { crm: crmResults } : {}), ...(crmProviderResults.length ? { crmProviders: crmProviderResults } : {}), ...(tracingResults ? { tracing: tracingResults } : {}) },
    table,
  };
  // A partial run (--only) does not replace the last full run's figures.
  const resultsFile = parts.size === PARTS.length ? 'bench.json' : `bench-${[...parts].sort().join('-')}.json`;
  writeFileSync(join(resultsDir, resultsFile), `${JSON.stringify(json, null, 2)}\n`);
  if (results.overhead) {
    writeFileSync(join(resultsDir, 'overhead.svg'), overheadChartSvg(results, `${latencyNote}; ${measuredAt.slice(0, 16)}Z, load ${loadAverage[0]} on ${machine.cpus} cores`));
  }
  log(`Wrote bench/results/${resultsFile}${results.overhead ? ' and overhead.svg' : ''}`);
  if (flags.json) {
    const figures = {
      ...flattenFigures(json.results, ''),
      ...namedFigures(json.results),
      ...(fairnessResults ? fairnessFigures(fairnessResults) : {}),
      'machine.cpus': machine.cpus,
      'machine.load_average_1m': loadAverage[0]!,
      'machine.load_average_5m': loadAverage[1]!,
    };
    writeFileSync(flags.json, figuresJson(figures));
    log(`Wrote ${Object.keys(figures).length} figures to ${flags.json}`);
  }
} catch (error) {
  log(`failed: ${(error as Error).stack ?? error}`);
  log(`logs are in ${join(stack.workDir, 'logs')}`);
  process.exitCode = 1;
} finally {
  await stack.stop(flags.keep || Boolean(process.exitCode));
  await mail?.close();
  await receiver?.close();
  await hubspotStandIn?.close();
  await providerStandIns?.close();
}
