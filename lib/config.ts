import { z } from 'zod';
import { RESEARCH_DEADLINE_MS, RESEARCH_TASK_QUEUE, SWEEP_INTERVAL_MS } from '../domain/research/contract.ts';
import { DEFAULT_ATTEMPTS_PER_ENDPOINT } from '../domain/webhooks/limits.ts';
import { DEFAULT_CRM_RUNS_PER_ACCOUNT } from '../domain/crm/run-cap.ts';
import { DEFAULT_MODEL_CALLS_PER_ACCOUNT, DEFAULT_PROVIDER_CALLS_PER_ACCOUNT, type CallCaps } from '../domain/research/call-caps.ts';
import { DEFAULT_FAIRNESS_WEIGHTS, parseFairnessWeights, type FairnessWeights } from '../domain/research/fairness.ts';
import { ConfigError, envVar, parseEnv, type Env } from './env.ts';
import { loadTemporalConnection, type TemporalConnectionSettings } from './temporal-connection.ts';

// Only local-development values have defaults; `npm run dev` and the tests set
// DATABASE_URL and TEMPORAL_ADDRESS themselves. `.env.example` lists every variable.
const ZEnv = z.object({
  PORT: envVar.port().default(3000),
  HOST: envVar.text().default('127.0.0.1'),
  DATABASE_URL: envVar.url(['postgres', 'postgresql']),
  // Checked here for a clear line; read with TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_CONFIG_FILE and
  // TEMPORAL_PROFILE by lib/temporal-connection.ts, as every Temporal SDK reads them.
  TEMPORAL_ADDRESS: envVar.hostPort().optional(),
  TEMPORAL_NAMESPACE: envVar.text().optional(),
  /**
   * Worker Versioning (docs/deploy.md#rolling-out-workflow-code): the Worker
   * Deployment's name and this build's id, both or neither; set by the image
   * and the Helm chart (the temporal-worker-controller's names).
   */
  TEMPORAL_DEPLOYMENT_NAME: envVar.text().optional(),
  TEMPORAL_WORKER_BUILD_ID: envVar.text().optional(),
  TEMPORAL_TASK_QUEUE: envVar.text().default(RESEARCH_TASK_QUEUE),
  RESEARCH_DEADLINE_MS: envVar.int({ min: 1 }).default(RESEARCH_DEADLINE_MS),
  /** How long past its deadline a running job may go before the status endpoint checks its workflow still exists. */
  RESEARCH_BACKSTOP_GRACE_MS: envVar.int().default(15_000),
  /** How often the worker's Schedule sweeps jobs whose workflow vanished (chaos runs use seconds). */
  RESEARCH_SWEEP_INTERVAL_MS: envVar.int({ min: 1_000 }).default(SWEEP_INTERVAL_MS),
  LOG_LEVEL: envVar.oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DB_POOL_MAX: envVar.int({ min: 1 }).default(20),
  /**
   * The worker's /metrics and /healthz listener, `off` (the default) serves none;
   * `npm run dev` sets 9464. Set it wherever Prometheus scrapes the worker.
   */
  WORKER_METRICS_PORT: z.union([z.literal('off'), envVar.int({ min: 1, max: 65535 })]).describe('a port from 1 to 65535, or off').default('off'),
  WORKER_METRICS_HOST: envVar.text().default('127.0.0.1'),
  /**
   * When set, the API's /metrics answers only `Authorization: Bearer <this>`.
   * Required in production (loadApiConfig): the API's port is public.
   */
  METRICS_BEARER_TOKEN: envVar.text().optional(),
  /**
   * Which worker roles this process runs (worker/roles.ts): `research`, `crm`,
   * `webhooks`, `housekeeping`, a comma list, or `all` (the default).
   */
  WORKER_ROLES: envVar.text().default('all'),
  /** Slot limits of this process's Workers, over each role's own defaults (one role per process). */
  WORKER_MAX_CONCURRENT_ACTIVITIES: envVar.int({ min: 1 }).optional(),
  // At least 2: a Worker that caches workflows polls with two pollers, each holding a slot.
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: envVar.int({ min: 2 }).optional(),
  /**
   * How long a draining process waits after readiness turns false before it
   * stops taking work, so that a load balancer sees it leave (Kubernetes: a few seconds).
   */
  SHUTDOWN_READINESS_DELAY_MS: envVar.int().default(0),
  /** How long in-flight work may take to finish after SIGTERM before it is cut (activities are then retried elsewhere). */
  SHUTDOWN_GRACE_MS: envVar.int({ min: 0 }).default(20_000),
  /**
   * Temporal fairness weight per plan (domain/research/fairness.ts), e.g.
   * `scale=2`: plans not named weigh 1. Unset: every account weighs the same.
   */
  FAIRNESS_PLAN_WEIGHTS: z.string().trim().transform((text, ctx) => {
    try {
      return parseFairnessWeights(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  }).describe('plan=weight pairs separated by commas, e.g. scale=2,growth=1.5 (weights from 0.001 to 1000)').optional(),
  /**
   * First webhook attempts to one endpoint under way at once, across every
   * webhooks process (services/webhooks/webhooks.ts claimFirstAttempts); the
   * endpoint's other deliveries wait their turn, oldest first.
   */
  WEBHOOK_ATTEMPTS_PER_ENDPOINT: envVar.int({ min: 1 }).default(DEFAULT_ATTEMPTS_PER_ENDPOINT),
  /**
   * CRM runs of one account running at once (domain/crm/run-cap.ts), across
   * every CRM worker; further runs wait `queued` and start by themselves.
   */
  CRM_RUNS_PER_ACCOUNT: envVar.int({ min: 1 }).default(DEFAULT_CRM_RUNS_PER_ACCOUNT),
  /**
   * Provider and model calls of one account in flight at once, per research
   * worker process (domain/research/call-caps.ts); further calls wait for the
   * account's own to end.
   */
  PROVIDER_CALLS_PER_ACCOUNT: envVar.int({ min: 1 }).default(DEFAULT_PROVIDER_CALLS_PER_ACCOUNT),
  MODEL_CALLS_PER_ACCOUNT: envVar.int({ min: 1 }).default(DEFAULT_MODEL_CALLS_PER_ACCOUNT),
});

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  temporal: { address: string; namespace: string; taskQueue: string; connection: TemporalConnectionSettings };
  /** This build's Worker Deployment version; null: unversioned workers (the dev server, the tests). */
  workerVersion: { deploymentName: string; buildId: string } | null;
  researchDeadlineMs: number;
  /** Deadline plus grace: a job still running after this is overdue (status backstop and sweeper). */
  researchOverdueAfterMs: number;
  researchSweepIntervalMs: number;
  logLevel: z.infer<typeof ZEnv>['LOG_LEVEL'];
  dbPoolMax: number;
  /** Where the worker serves /metrics; null: nowhere. */
  workerMetrics: { port: number; host: string } | null;
  metricsBearerToken: string | null;
  workerRoles: string;
  /** Overrides of the roles' own slot limits; unset: each role's default. */
  workerSlots: WorkerSlots;
  shutdown: { readinessDelayMs: number; graceMs: number };
  /** Temporal fairness weight of each plan's accounts on the research queue. */
  fairnessWeights: FairnessWeights;
  /** First webhook attempts to one endpoint under way at once. */
  webhookAttemptsPerEndpoint: number;
  /** CRM runs of one account running at once. */
  crmRunsPerAccount: number;
  /** Provider and model calls of one account in flight at once, per research worker process. */
  callCaps: CallCaps;
}

export interface WorkerSlots {
  maxActivities?: number;
  maxWorkflowTasks?: number;
}

/** Parses the environment once at start-up; a ConfigError names every bad variable (lib/env.ts). */
export function loadConfig(env: Env = process.env): Config {
  const e = parseEnv(ZEnv, env);
  const connection = loadTemporalConnection(env);
  if (Boolean(e.TEMPORAL_DEPLOYMENT_NAME) !== Boolean(e.TEMPORAL_WORKER_BUILD_ID)) {
    throw new ConfigError(['TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_WORKER_BUILD_ID: set both (Worker Versioning) or neither']);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    temporal: { address: connection.address, namespace: connection.namespace, taskQueue: e.TEMPORAL_TASK_QUEUE, connection },
    workerVersion: e.TEMPORAL_DEPLOYMENT_NAME && e.TEMPORAL_WORKER_BUILD_ID ? { deploymentName: e.TEMPORAL_DEPLOYMENT_NAME, buildId: e.TEMPORAL_WORKER_BUILD_ID } : null,
    researchDeadlineMs: e.RESEARCH_DEADLINE_MS,
    researchOverdueAfterMs: e.RESEARCH_DEADLINE_MS + e.RESEARCH_BACKSTOP_GRACE_MS,
    researchSweepIntervalMs: e.RESEARCH_SWEEP_INTERVAL_MS,
    logLevel: e.LOG_LEVEL,
    dbPoolMax: e.DB_POOL_MAX,
    workerMetrics: e.WORKER_METRICS_PORT === 'off' ? null : { port: e.WORKER_METRICS_PORT, host: e.WORKER_METRICS_HOST },
    metricsBearerToken: e.METRICS_BEARER_TOKEN ?? null,
    workerRoles: e.WORKER_ROLES,
    workerSlots: {
      ...(e.WORKER_MAX_CONCURRENT_ACTIVITIES ? { maxActivities: e.WORKER_MAX_CONCURRENT_ACTIVITIES } : {}),
      ...(e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS ? { maxWorkflowTasks: e.WORKER_MAX_CONCURRENT_WORKFLOW_TASKS } : {}),
    },
    shutdown: { readinessDelayMs: e.SHUTDOWN_READINESS_DELAY_MS, graceMs: e.SHUTDOWN_GRACE_MS },
    fairnessWeights: e.FAIRNESS_PLAN_WEIGHTS ?? DEFAULT_FAIRNESS_WEIGHTS,
    webhookAttemptsPerEndpoint: e.WEBHOOK_ATTEMPTS_PER_ENDPOINT,
    crmRunsPerAccount: e.CRM_RUNS_PER_ACCOUNT,
    callCaps: { providerCallsPerAccount: e.PROVIDER_CALLS_PER_ACCOUNT, modelCallsPerAccount: e.MODEL_CALLS_PER_ACCOUNT },
  };
}

/**
 * The API's settings: loadConfig's, and in production a METRICS_BEARER_TOKEN,
 * since the API serves /metrics on its own public port and its figures (traffic,
 * jobs, credits) are not for its clients.
 */
export function loadApiConfig(env: Env = process.env): Config {
  const config = loadConfig(env);
  if (config.metricsBearerToken === null && env.NODE_ENV?.trim() === 'production') {
    throw new ConfigError([
      "METRICS_BEARER_TOKEN is not set: required when NODE_ENV=production, since the API's /metrics is on its public port (Prometheus sends it as `Authorization: Bearer <token>`)",
    ]);
  }
  return config;
}
