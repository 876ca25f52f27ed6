// The contract between the API, the worker and the workflow code. Pure types and
// constants only: workflow code imports this module, so it must stay free of
// Node built-ins and I/O (Temporal's deterministic sandbox).

export const RESEARCH_TASK_QUEUE = 'research';
export const RESEARCH_WORKFLOW_TYPE = 'researchWorkflow';

/** Custom search attributes registered on the Temporal server (operators filter by account). */
export const RESEARCH_SEARCH_ATTRIBUTES = { ResearchAccountId: 'Keyword' } as const;

/** docs/api.md#job-states: a job in `processing` for more than 3 minutes becomes `failed`. */
export const RESEARCH_DEADLINE_MS = 3 * 60 * 1000;

export interface ResearchWorkflowInput {
  researchId: string;
  /** Epoch milliseconds of the accepted POST: the deadline counts from submission. */
  submittedAtMs: number;
  deadlineMs: number;
}

export const RESEARCH_STAGES = ['queued', 'loading_cache', 'fetching_data', 'generating_insights', 'storing_results', 'done'] as const;
export type ResearchStage = (typeof RESEARCH_STAGES)[number];

export interface ResearchProgress {
  stage: ResearchStage;
  /** Parts whose fetch has finished (person, company, posts, news, …). */
  partsDone: string[];
  /** True when every part is served from the cache. */
  isCacheHit: boolean;
}

export const PROGRESS_QUERY = 'progress';

/** Why a job failed, as shown in `error` (docs/api.md#errors). */
export type ResearchFailure = 'internal_error' | 'timeout';

/** Failure types raised by activities; explicit strings, never class names (minification, renames). */
export const FAILURE_TYPES = {
  jobNotFound: 'ResearchJobNotFound',
  providerUnavailable: 'ProviderUnavailable',
  aiUnavailable: 'AiUnavailable',
  invalidState: 'InvalidJobState',
} as const;

export const SWEEP_WORKFLOW_TYPE = 'sweepStaleJobsWorkflow';
/**
 * The sweep runs in this division (Temporal's built-in `TemporalNamespaceDivision`
 * search attribute): the Temporal UI's and CLI's default workflow lists leave
 * divisions out, as they do the Schedules' own workflows. An operator sees the
 * sweeps with the query `TemporalNamespaceDivision = "prospect-maintenance"`.
 */
export const MAINTENANCE_DIVISION = 'prospect-maintenance';
/**
 * Fails and refunds jobs whose workflow vanished, even when nobody polls them;
 * RESEARCH_SWEEP_INTERVAL_MS overrides it. A poll of an overdue job already
 * answers `failed`/`timeout` on read (api/research-status.ts), so the sweep
 * only settles the refunds of jobs nobody polls: every 10 minutes (144 runs a
 * day) is soon enough for that, and keeps the Temporal UI readable.
 */
export const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
