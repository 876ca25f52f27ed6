// The contract between the CRM Schedules, the dashboard's "Run now", the
// sync workflow and its activities. Pure types: workflow code imports it.
import type { CandidateVerdict, CrmRunCounts, CrmSettings } from './crm.ts';

export interface CrmSyncInput {
  productId: number;
  trigger: 'schedule' | 'manual';
}

/** What a run works with, read once when it starts (settings edited during a run apply to the next). */
export interface CrmRunPlan {
  runId: string;
  /** Null: the run does nothing, and says why (`paused`, `not_connected`, `plan`, `no_settings`). */
  notRunReason: string | null;
  settings: CrmSettings | null;
  productName: string;
  portalId: number | null;
  ownerEmail: string;
}

export interface CandidateSearch {
  taken: CandidateVerdict[];
  skipped: CandidateVerdict[];
  found: number;
}

export interface ContactOutcome {
  contactId: string;
  outcome: 'researched' | 'failed' | 'not_researched';
  researchId: string | null;
  /** The run stopped researching here: the account has no credits left. */
  outOfCredits: boolean;
  creditsUsed: number;
}

export interface CrmSyncResult {
  runId: string;
  status: 'completed' | 'credits_exhausted' | 'not_run' | 'failed';
  reason: string | null;
  counts: CrmRunCounts;
}

/** Failure types of the CRM activities (docs/architecture.md#activity-option-profiles-and-failure-types: strings, not classes, cross the Temporal boundary). */
export const CRM_FAILURE_TYPES = {
  /** HubSpot refused the connection's grant: the integrations are paused, the owner told. */
  authRevoked: 'crm_auth_revoked',
  /** HubSpot refused our client id or secret: configuration. */
  configRejected: 'crm_config_rejected',
  /** HubSpot refused one request for good (400, 403, 404, 409). */
  rejected: 'crm_rejected',
  /** 429, 5xx or the network: retried after the wait HubSpot asked for. */
  unavailable: 'crm_unavailable',
} as const;

/**
 * Contacts a run researches at once (runs with the write-as-researched patch;
 * older runs replay with CRM_CONTACTS_IN_FLIGHT, 5). Matched to HubSpot's
 * budget rather than to the research: a contact costs ~3.4 HubSpot calls and
 * a portal takes 110 per 10 s (documented; our throttle 100), so a run of 50
 * (the settings' maximum) needs ~15.5 s of HubSpot's budget whatever we do.
 * With one contact's research at ~3.5–4 s (the bench's latencies), 13 at
 * once research 50 in 4 rounds, inside that time; fewer would make the
 * research the longer part, more would only queue at HubSpot's rate while
 * holding more of the research workers from the API's own jobs.
 */
export const CRM_RUN_CONTACTS_IN_FLIGHT = 13;
