// Lists (docs/lists.md): what the server and
// the dashboard's Lists page share. How a list is used and run: docs/lists.md.
import { z } from 'zod';
import type { PlanName } from '../billing/plans.ts';

export const LIST_STATUSES = ['draft', 'queued', 'running', 'cancelling', 'completed', 'cancelled', 'stopped_no_credits'] as const;
export type ListStatus = (typeof LIST_STATUSES)[number];
export const isListRunning = (status: ListStatus) => status === 'running' || status === 'cancelling';
/** Started while the account ran its plan's number of lists: it runs when one of them ends. */
export const isListQueued = (status: ListStatus) => status === 'queued';

/** A row as the page shows it; `started` rows read their job's status. */
export const LIST_ROW_STATUSES = ['skipped', 'pending', 'running', 'completed', 'failed', 'not_charged'] as const;
export type ListRowStatus = (typeof LIST_ROW_STATUSES)[number];

/**
 * Lists running at once per account: one on Free and Starter, three on Growth
 * and Scale. A list started beyond it waits `queued` and starts by itself when
 * one of the account's running lists ends (services/lists/queue.ts).
 */
export const MAX_RUNNING_LISTS: Record<PlanName, number> = { free: 1, starter: 1, growth: 3, scale: 3 };

export const LIST_RUN_WORKFLOW_TYPE = 'listRunWorkflow';
export const listRunWorkflowId = (listId: string) => `list-run-${listId}`;
/** The input of listRunWorkflow (workflows/list-run-workflow.ts). */
export interface ListRunInput {
  listId: string;
  researchTaskQueue: string;
  deadlineMs: number;
  /** Rows researched at once; LIST_ITEMS_IN_FLIGHT unless set. */
  inFlight?: number;
  /** Rows per page (one run of the workflow before it continues as new); 200 unless set. */
  rowsPerPage?: number;
  /** Continued as new: rows up to this position are behind the run. */
  afterPosition?: number;
  isOutOfCredits?: boolean;
}

export const LIST_ID_SHAPE = /^lst_[0-9A-Za-z]{24}$/;

const columnIndex = z.number().int().min(0).max(10_000);
export const ZColumnMapping = z.strictObject({
  email: columnIndex.optional(),
  prospect_name: columnIndex.optional(),
  prospect_last_name: columnIndex.optional(),
  company_name: columnIndex.optional(),
  social_url: columnIndex.optional(),
  company_social_url: columnIndex.optional(),
});

export const ZListPatch = z.strictObject({
  mapping: ZColumnMapping.optional(),
  skipFlagged: z.boolean().optional(),
  apiKeyId: z.number().int().positive().optional(),
  name: z.string().trim().min(1).max(200).optional(),
});
export type TListPatch = z.infer<typeof ZListPatch>;

export const ZPastedList = z.strictObject({
  pasted: z.string().min(1, 'Paste at least one address.'),
  name: z.string().trim().min(1).max(200).optional(),
});

export const ZListStart = z.strictObject({ expectedRows: z.number().int().min(0).optional() });

export interface ListCounts {
  total: number;
  toRun: number;
  done: number;
  failed: number;
  notCharged: number;
}

export interface ListSummary {
  id: string;
  name: string;
  status: ListStatus;
  apiKeyId: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  counts: ListCounts;
  stoppedReason: string | null;
  /** While queued: 1 for the account's next list to run, 2 for the one after it, … */
  queuePlace: number | null;
}

export interface ListProgress {
  total: number;
  done: number;
  failed: number;
  notCharged: number;
  remaining: number;
  /** Seconds left while running, from this list's own finished rows (domain/lists/time-left.ts); null before any has finished. */
  etaSeconds: number | null;
}

/** A queued list's turn, as the Lists page shows it (domain/lists/queue-wait.ts). */
export interface ListQueueWait {
  place: number;
  rowsAhead: number;
  startsInSeconds: number;
}

export interface ListRowReply {
  rowNumber: number;
  /** As stored and researched: the domain in its ASCII form. */
  email: string | null;
  /** As the page shows it: an internationalised domain in its own letters. */
  shownEmail: string | null;
  status: ListRowStatus;
  researchId: string | null;
  error: string | null;
  finishedAt: string | null;
}

export interface ListLimits {
  running: number;
  /** Lists started beyond `maxRunning`, waiting their turn. */
  queued: number;
  maxRunning: number;
  plan: PlanName;
  creditsLeft: number;
}
