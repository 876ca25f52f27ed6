// Retention rules and the purge workflow's contract (docs/operations.md#retention-and-account-deletion).
// Pure types and constants: workflow code imports this module.

/** Research log: a job's row and its Temporal history, counted from submission. */
export const RESEARCH_LOG_RETENTION_MONTHS = 12;
/** Error log: the error details of a failed job (its Temporal history), counted from the failure. */
export const ERROR_LOG_RETENTION_MONTHS = 6;
/**
 * A deleted account's job that has not ended after this long lost its
 * workflow (the deadline is 3 minutes and the sweeper ends such jobs): the
 * purge takes it rather than wait on it past the 30 days the spec allows.
 */
export const ABANDONED_JOB_AFTER_MS = 24 * 60 * 60 * 1000;

export const PURGE_WORKFLOW_TYPE = 'purgeWorkflow';
/** Rows (and histories) one activity call deletes at most. */
export const PURGE_BATCH_SIZE = 500;
/** Daily, at a quiet hour (UTC). */
export const PURGE_SCHEDULE_TIME_UTC = { hour: 3, minute: 30 } as const;

/** What one purge run deleted. */
export interface PurgeCounts {
  /** Research logs past 12 months: job rows and the Temporal histories the server still held. */
  researchJobs: number;
  researchHistories: number;
  /** Completion-webhook deliveries, with their job (the payload is its reply), or past 12 months for test events. */
  webhookDeliveries: number;
  /** Uploaded lists (with their rows) past 12 months, or of a deleted account. */
  prospectLists: number;
  /** Error logs past 6 months: histories of failed jobs (the rows stay until their 12 months), and the SMTP errors kept on sent or abandoned mail. */
  errorHistories: number;
  mailErrors: number;
  /** Deleted accounts finished: rows of each kind, and the accounts made tombstones. */
  accountJobs: number;
  accountHistories: number;
  prospects: number;
  companies: number;
  decisionMakers: number;
  productContexts: number;
  apiKeys: number;
  webhookEndpoints: number;
  accountsDeleted: number;
}

export const PURGE_COUNT_NAMES = [
  'researchJobs',
  'researchHistories',
  'webhookDeliveries',
  'prospectLists',
  'errorHistories',
  'mailErrors',
  'accountJobs',
  'accountHistories',
  'prospects',
  'companies',
  'decisionMakers',
  'productContexts',
  'apiKeys',
  'webhookEndpoints',
  'accountsDeleted',
] as const satisfies ReadonlyArray<keyof PurgeCounts>;

export const noPurgeCounts = (): PurgeCounts =>
  Object.fromEntries(PURGE_COUNT_NAMES.map((name) => [name, 0])) as unknown as PurgeCounts;

export function addPurgeCounts(total: PurgeCounts, more: Partial<PurgeCounts>): PurgeCounts {
  const sum = { ...total };
  for (const name of PURGE_COUNT_NAMES) sum[name] += more[name] ?? 0;
  return sum;
}

export interface PurgeInput {
  /** The purge's "now", ISO 8601; absent, the worker's clock is read once (tests purge "13 months later"). */
  now?: string;
  batchSize?: number;
  /** Steps before the run continues as new (keeps its history short); tests make it small. */
  stepsPerRun?: number;
  /** Counts of the earlier runs of the same purge, carried across continue-as-new. */
  carried?: PurgeCounts;
}

export interface PurgeReport {
  now: string;
  deleted: PurgeCounts;
}

/** One bounded step of the purge; `hasMore` asks for another call. */
export interface PurgeBatch {
  deleted: Partial<PurgeCounts>;
  hasMore: boolean;
}

/** `now` minus whole calendar months (UTC); a day the month lacks falls back to its last day. */
export function monthsBefore(now: Date, months: number): Date {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() - months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(Date.UTC(year, month, Math.min(now.getUTCDate(), lastDay), now.getUTCHours(), now.getUTCMinutes(), now.getUTCSeconds(), now.getUTCMilliseconds()));
}
