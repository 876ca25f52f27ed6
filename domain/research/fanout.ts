// The contract of the shared research fan-out (workflows/research-fanout.ts):
// many research jobs at once for a list or a CRM run (docs/architecture.md#many-jobs-at-once-crm-runs-and-lists). Pure types: workflow code imports it.
import type { ResearchRequest } from './request.ts';

export const RESEARCH_SOURCES = ['api', 'list', 'crm', 'mcp'] as const;
export type ResearchSource = (typeof RESEARCH_SOURCES)[number];

/**
 * Temporal task priority (1 goes first, 5 last; 3 when unset) by source: a
 * caller's job goes ahead of the rows of lists and CRM runs on the research
 * queue, so a 1,000-row list never delays it. An AI agent's call (`mcp`) waits
 * for its job like an API caller's does. A list or CRM run started now
 * carries its key and its children and their activities inherit it; a CRM
 * run started by its Schedule has the default (3), still behind callers
 * (the SDK's Schedule actions take no priority yet).
 */
export const RESEARCH_PRIORITY_KEY: Record<ResearchSource, number> = { api: 1, list: 4, crm: 4, mcp: 1 };

/** Who pays for the items and whose product context applies. */
export interface FanoutOwner {
  source: Exclude<ResearchSource, 'api' | 'mcp'>;
  /** The list id or the CRM run id: with an item's key, it names the item's one research job. */
  ref: string;
  accountId: number;
  productId: number;
  apiKeyId: number | null;
}

export interface FanoutItem {
  /** Unique within `ref` (a list's row position, a CRM contact id). */
  key: string;
  request: ResearchRequest;
}

/** The fan-out's step that records an item's job and takes its credit, in one transaction. */
export type FanoutJobRecord =
  | { outcome: 'recorded'; researchId: string; submittedAtMs: number }
  /** The account has no credit left: the fan-out takes no further item. */
  | { outcome: 'out_of_credits' }
  /** The list was cancelled (or the item is no longer wanted): not started, not charged. */
  | { outcome: 'stopped' };

export interface FanoutItemOutcome {
  key: string;
  /** `not_started`: never charged (cancelled, or credits ran out before it). */
  outcome: 'completed' | 'failed' | 'not_started';
  researchId: string | null;
  error: string | null;
}

export interface FanoutResult {
  outcomes: FanoutItemOutcome[];
  /** Credits taken by this fan-out (refunds of failed jobs are the research workflow's business). */
  creditsUsed: number;
  isOutOfCredits: boolean;
  isStopped: boolean;
}

export interface FanoutOptions {
  /** Items researched at once: one list never starves the API's own jobs. */
  inFlight: number;
  /** The research task queue: the children and the fan-out's own steps run there. */
  researchTaskQueue: string;
  deadlineMs: number;
}

/** Items in flight for a list run and for a CRM run. */
export const LIST_ITEMS_IN_FLIGHT = 8;
export const CRM_CONTACTS_IN_FLIGHT = 5;
