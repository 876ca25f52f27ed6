import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { FAILURE_TYPES } from '../domain/research/contract.ts';

// Named activity option profiles (docs/architecture.md#activity-option-profiles-and-failure-types), every field spelled out.

/** Database work is quick and worth retrying through a PostgreSQL restart. */
const databaseRetry = {
  initialInterval: '200 milliseconds',
  backoffCoefficient: 2,
  maximumInterval: '5 seconds',
  maximumAttempts: 10,
  nonRetryableErrorTypes: [FAILURE_TYPES.jobNotFound, FAILURE_TYPES.invalidState],
};

/** Database reads and writes. */
export const dbWrite: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: databaseRetry,
};

/**
 * `startResearch` and `finishResearch` as local activities: a few indexed
 * reads (and, on a full cache hit, the job's completion), or the one
 * transaction that stores the parts, run by the worker inside a workflow task
 * with no round trip through the server (the latency of a cache hit, and
 * CPU per job). Both are idempotent, so a re-run after a lost worker is safe.
 */
export const dbLocal: LocalActivityOptions = {
  startToCloseTimeout: '15 seconds',
  localRetryThreshold: '5 seconds',
  retry: databaseRetry,
};

/** One enrichment lookup; the provider clients retry 429/5xx themselves, so few attempts here. */
export const providerCall: ActivityOptions = {
  startToCloseTimeout: '45 seconds',
  // Activities heartbeat every second: a dead worker is noticed in seconds.
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 2,
    nonRetryableErrorTypes: [],
  },
};

/**
 * Every enrichment part of a job in one activity (`lookupParts`).
 * Each part has its own timeout and retry inside (activities/enrichment.ts
 * `PART_POLICY`, the figures of `providerCall`) and fails alone; these
 * attempts are for a lost worker, noticed within the heartbeat timeout, and
 * resume from what the last attempt reported in its heartbeats. The job's
 * 3-minute deadline bounds it first.
 */
export const lookupCall: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 5,
    nonRetryableErrorTypes: [FAILURE_TYPES.jobNotFound, FAILURE_TYPES.invalidState],
  },
};

/**
 * The AI step; the client retries 429/5xx and repairs sizes, and a failure is
 * a result (null). Three attempts: one lost to a worker killed mid-call and
 * one to a worker drained past its grace time still leave one (`npm run
 * cluster` lost jobs to that pair with two). The job's deadline bounds them.
 */
export const modelCall: ActivityOptions = {
  startToCloseTimeout: '100 seconds',
  heartbeatTimeout: '5 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: [FAILURE_TYPES.aiUnavailable],
  },
};

/**
 * A CRM run's own database steps (start, finish): quick, retried through a
 * PostgreSQL restart. The finish also posts the chat summary in the
 * webhook's turn (about one message a second per webhook, shared by every
 * run): it may wait, heartbeating, so a dead worker is noticed in seconds.
 */
export const crmDatabase: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: databaseRetry,
};

/**
 * A queued CRM run asking for its turn (docs/crm.md#runs-waiting-their-turn):
 * each try is one short transaction; a try that finds the account at its cap
 * fails and is tried again, for as long as it takes, every 10 seconds at most
 * (retries add nothing to the run's history, a timer loop would).
 */
export const crmRunTurn: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 1.5,
    maximumInterval: '10 seconds',
    // No maximumAttempts: unlimited (the SDK refuses 0).
  },
};

/**
 * A CRM step that calls HubSpot (properties, search, a contact's write-back).
 * The client waits out short 429s itself and throttles per portal; longer
 * waits come back as `crm_unavailable` with the delay HubSpot asked for, so
 * many attempts over several minutes. A dead grant or a refusal is final.
 * The activities heartbeat every second (activities/crm-sync.ts): a write in
 * flight on a worker that died is tried again after the heartbeat timeout,
 * not after the 2 minutes a slow step may take.
 */
export const crmHubSpot: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 12,
    nonRetryableErrorTypes: ['crm_auth_revoked', 'crm_config_rejected', 'crm_rejected'],
  },
};
