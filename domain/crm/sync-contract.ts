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
  /** The connected CRM (absent in runs recorded before there was more than one: HubSpot). */
  provider?: 'hubspot' | 'pipedrive' | 'salesforce';
  /** The connected portal's id in its CRM, as text (runs recorded before kept HubSpot's as a number). */
  portalId: string | number | null;
  ownerEmail: string;
}

export interface CandidateSearch {
  taken: CandidateVerdict[];
  skipped: CandidateVerdict[];
  found: number;
}

/** One contact handed to a batch write (docs/crm.md#batch-writes): how its research ended. */
export interface ContactWriteItem {
  contact: CandidateVerdict;
  outcome: 'researched' | 'failed' | 'not_researched';
  researchId: string | null;
  error: string | null;
}

/** What the batch write made of a contact: researched (written, noted, `completed`), failed (and why), or not researched. */
export interface ContactWriteOutcome {
  contactId: string;
  outcome: 'researched' | 'failed' | 'not_researched';
  error: string | null;
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
 * older runs replay with CRM_CONTACTS_IN_FLIGHT, 5). Chosen when a contact
 * cost ~3.4 HubSpot calls and a run of 50 needed ~15.5 s of a portal's
 * budget: 13 at once research 50 in 4 rounds inside that time. With batch
 * writes (docs/crm.md#batch-writes) a run spends a few calls in all and the
 * research is the whole bound: ceil(contacts ÷ 13) rounds of one contact's
 * research. More at once would shorten a run, at the price of more of the
 * research workers held from the API's own jobs; the value is part of the
 * recorded runs' shape (the replay tests hold it).
 */
export const CRM_RUN_CONTACTS_IN_FLIGHT = 13;
