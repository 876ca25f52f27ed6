// Prometheus metrics of this process, in one registry served at /metrics by the
// API (api/routes/metrics.ts) and the worker (worker/metrics-server.ts). The
// job and credit counters count where the change happens: a job accepted in the
// API, completed in the worker, failed in either (the workflow, the sweeper, or
// the API's deadline check on read). Sum them over all processes.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ResearchFailure } from '../domain/research/contract.ts';

export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

/** Seconds: HTTP replies are milliseconds, outside calls up to the 3-minute deadline. */
const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const httpMetrics = {
  requests: new Counter({
    name: 'http_requests_total',
    help: 'API requests by route (the path pattern, not the path), method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [metricsRegistry],
  }),
  duration: new Histogram({
    name: 'http_request_duration_seconds',
    help: 'API request latency by route, method and status (a ?wait long poll counts its wait)',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [metricsRegistry],
  }),
  longPollsWaiting: new Gauge({
    name: 'research_status_long_polls_waiting',
    help: 'GET /research-status ?wait polls currently held open',
    registers: [metricsRegistry],
  }),
};

export const jobMetrics = {
  accepted: new Counter({ name: 'research_jobs_accepted_total', help: 'Research jobs accepted (202), each with its credit', registers: [metricsRegistry] }),
  completed: new Counter({ name: 'research_jobs_completed_total', help: 'Research jobs that ended completed', registers: [metricsRegistry] }),
  failed: new Counter({
    name: 'research_jobs_failed_total',
    help: 'Research jobs that ended failed, by error (internal_error, timeout)',
    labelNames: ['error'] as const,
    registers: [metricsRegistry],
  }),
  creditsConsumed: new Counter({ name: 'credits_consumed_total', help: 'Credits taken by accepted research jobs', registers: [metricsRegistry] }),
  creditsRefunded: new Counter({
    name: 'credits_refunded_total',
    help: 'Credits given back for failed jobs, by reason (internal_error, timeout)',
    labelNames: ['reason'] as const,
    registers: [metricsRegistry],
  }),
};

// Series an alert's increase() reads exist from the start at 0: one born at 1 would have its first failure missed.
for (const error of ['internal_error', 'timeout'] satisfies ResearchFailure[]) jobMetrics.failed.inc({ error }, 0);

/** A job left `queued`/`processing` and its credit was refunded (or it completed). */
export function countJobEnd(outcome: { status: 'completed' } | { status: 'failed'; error: ResearchFailure; isRefunded: boolean }): void {
  if (outcome.status === 'completed') {
    jobMetrics.completed.inc();
    return;
  }
  jobMetrics.failed.inc({ error: outcome.error });
  if (outcome.isRefunded) jobMetrics.creditsRefunded.inc({ reason: outcome.error });
}

/** Workflow starts of accepted jobs: the first try (the API's, before its 202), and the relay's for the ones it missed (services/research/workflow-start-relay.ts). */
export const workflowStartMetrics = {
  starts: new Counter({
    name: 'research_workflow_starts_total',
    help: 'Workflow starts of accepted research jobs, by attempt (first, relay) and outcome (started, failed: left to the relay)',
    labelNames: ['attempt', 'outcome'] as const,
    registers: [metricsRegistry],
  }),
};

export const outsideCallMetrics = {
  providerCalls: new Counter({
    name: 'provider_calls_total',
    help: 'HTTP calls to data providers (each attempt), by provider, endpoint and outcome',
    labelNames: ['provider', 'endpoint', 'outcome'] as const,
    registers: [metricsRegistry],
  }),
  providerDuration: new Histogram({
    name: 'provider_call_duration_seconds',
    help: 'Latency of data-provider calls (each attempt), by provider, endpoint and outcome',
    labelNames: ['provider', 'endpoint', 'outcome'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [metricsRegistry],
  }),
  modelCalls: new Counter({
    name: 'model_calls_total',
    help: 'Chat-completion calls to the AI model (each attempt), by model and outcome',
    labelNames: ['model', 'outcome'] as const,
    registers: [metricsRegistry],
  }),
  modelDuration: new Histogram({
    name: 'model_call_duration_seconds',
    help: 'Latency of AI model calls (each attempt), by model and outcome',
    labelNames: ['model', 'outcome'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [metricsRegistry],
  }),
  modelTokens: new Counter({
    name: 'model_tokens_total',
    help: 'Tokens the AI model reports, by model and kind (prompt, completion)',
    labelNames: ['model', 'kind'] as const,
    registers: [metricsRegistry],
  }),
};

type CallKind = 'provider' | 'model';
export type CallCounts = Record<CallKind, { inFlight: number; waiting: number }>;
const callCountReaders: Array<() => CallCounts> = [];

function callGauge(name: string, help: string, pick: (counts: CallCounts[CallKind]) => number) {
  return { name, gauge: new Gauge({
    name,
    help,
    labelNames: ['kind'] as const,
    registers: [],
    collect() {
      for (const kind of ['provider', 'model'] as const) {
        this.set({ kind }, callCountReaders.reduce((total, read) => total + pick(read()[kind]), 0));
      }
    },
  }) };
}

/**
 * Provider and model calls of this research worker in flight, and waiting for
 * their account's turn (activities/call-turns.ts), summed over accounts (an
 * account label would grow with every customer). A waiting count that stays
 * up means accounts keep bursting past their cap.
 */
const callGauges = [
  callGauge('research_calls_in_flight', 'Provider and model calls in flight in this research worker, by kind (provider, model)', (counts) => counts.inFlight),
  callGauge('research_calls_waiting', "Provider and model calls waiting for their account's turn (its cap per process), by kind (provider, model)", (counts) => counts.waiting),
];

/** Adds a research worker's call counts to the gauges above, served from then on (a process without one has none). */
export function observeCallCounts(read: () => CallCounts): void {
  callCountReaders.push(read);
  for (const { name, gauge } of callGauges) if (!metricsRegistry.getSingleMetric(name)) metricsRegistry.registerMetric(gauge);
}

/** CRM sync runs as they end (services/crm/sync.ts), counted by the crm worker. */
export const crmMetrics = {
  runsFinished: new Counter({
    name: 'crm_runs_finished_total',
    help: 'CRM sync runs that ended after running, by status (completed, credits_exhausted, failed)',
    labelNames: ['status'] as const,
    registers: [metricsRegistry],
  }),
};
for (const status of ['completed', 'credits_exhausted', 'failed']) crmMetrics.runsFinished.inc({ status }, 0);

/** What the API reads from PostgreSQL when scraped: states no single process counts as they change. */
export interface OperationalState {
  /** Age of the oldest job still `queued`; 0 when none waits. */
  researchBacklogOldestSeconds: number;
  /** Active webhook endpoints whose every attempt has failed since their failing streak began. */
  webhookEndpointsFailing: number;
  /** Accounts whose `credits_used` differs from the running sum of their credit ledger. */
  creditsLedgerDriftAccounts: number;
}

let readState: (() => Promise<OperationalState>) | null = null;
let stateRead: { at: number; value: Promise<OperationalState> } | null = null;
/** One read serves every gauge of a scrape and the scrapes of the next half minute (the ledger sum reads the whole ledger). */
const STATE_READ_TTL_MS = 30_000;

function currentState(): Promise<OperationalState> | null {
  if (!readState) return null;
  if (!stateRead || Date.now() - stateRead.at > STATE_READ_TTL_MS) {
    const value = readState();
    stateRead = { at: Date.now(), value };
    value.catch(() => (stateRead = null)); // a failed read is not kept: the next scrape tries again
  }
  return stateRead.value;
}

const stateGauge = (name: string, help: string, pick: (state: OperationalState) => number) => ({
  name,
  gauge: new Gauge({
    name,
    help,
    registers: [],
    async collect() {
      const state = await currentState()?.catch(() => null);
      if (state) this.set(pick(state));
    },
  }),
});

const stateGauges = [
  stateGauge('research_backlog_oldest_seconds', 'Age of the oldest research job still queued (0: none waits)', (state) => state.researchBacklogOldestSeconds),
  stateGauge('webhook_endpoints_failing', 'Active webhook endpoints whose every attempt has failed since their failing streak began', (state) => state.webhookEndpointsFailing),
  stateGauge('credits_ledger_drift_accounts', "Accounts whose credits_used differs from their credit ledger's running sum", (state) => state.creditsLedgerDriftAccounts),
];

/**
 * Serves the state gauges from `read` (the API, docs/operations.md#metrics);
 * a process that never calls this has none. A later call replaces the reader.
 */
export function serveOperationalState(read: () => Promise<OperationalState>): void {
  readState = read;
  stateRead = null;
  for (const { name, gauge } of stateGauges) if (!metricsRegistry.getSingleMetric(name)) metricsRegistry.registerMetric(gauge);
}
