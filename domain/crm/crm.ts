// The CRM integration's rules (docs/crm.md; docs/decisions.md#crm-integration):
// settings, schedule cadences, HubSpot property names, and why a contact is
// skipped. Pure types and functions: workflow code imports this module, so it
// stays free of Node built-ins and I/O.
import type { PropertyMapping } from './write-rules.ts';

export const CRM_SYNC_WORKFLOW_TYPE = 'crmSyncWorkflow';
/** Custom search attributes (Keyword) on every CRM Schedule and run, so operators find them by account and product. */
export const CRM_SEARCH_ATTRIBUTES = { CrmAccountId: 'Keyword', CrmProductId: 'Keyword' } as const;

export const CADENCES = ['daily', 'mon_thu', 'weekly_mon'] as const;
export type Cadence = (typeof CADENCES)[number];
export const CADENCE_LABELS: Record<Cadence, string> = { daily: 'Daily', mon_thu: 'Twice a week (Monday and Thursday)', weekly_mon: 'Weekly (Monday)' };

/** Days a cadence runs on, 0 = Sunday (as Date#getUTCDay and Temporal's calendar `dayOfWeek`). */
export const CADENCE_DAYS: Record<Cadence, number[]> = { daily: [0, 1, 2, 3, 4, 5, 6], mon_thu: [1, 4], weekly_mon: [1] };

/** docs/decisions.md#crm-integration: runs may start up to 10 minutes late so that accounts choosing the same hour do not all start at once. */
export const CRM_SCHEDULE_JITTER_MS = 10 * 60_000;

export const CRM_DEFAULTS = {
  cadence: 'daily' as Cadence,
  hourUtc: 8,
  scoreProperty: 'hubspotscore',
  minScore: 70,
  skipFreeMail: true,
  skipRoleBased: true,
  researchLimit: 10,
  digestEnabled: true,
} as const;
export const RESEARCH_LIMIT_MAX = 50;

export interface CrmSettings {
  productId: number;
  accountId: number;
  cadence: Cadence;
  hourUtc: number;
  scoreProperty: string;
  minScore: number;
  skipFreeMail: boolean;
  skipRoleBased: boolean;
  researchLimit: number;
  /** Null: no chat messages. */
  chatWebhookUrl: string | null;
  digestEnabled: boolean;
  /** Null: the account's e-mail. */
  digestEmail: string | null;
  active: boolean;
  /** Why it is paused when not by its owner: `disconnected`, `plan`, `token_revoked`, `account_deleted`; null otherwise. */
  pausedReason: string | null;
  /** Research outputs written onto the portal's own properties too, each with its rule (domain/crm/write-rules.ts). */
  propertyMappings: PropertyMapping[];
  /** Null: off. Else completed contacts whose Enriched At is older than this many days are researched again. */
  reEnrichAfterDays: number | null;
  /** Salesforce: the records a run reads (Contact or Lead); null: the other CRMs, and Contacts in Salesforce. */
  crmObject?: 'Contact' | 'Lead' | null;
}

/**
 * The next time a cadence at `hourUtc` is due strictly after `after` (the
 * Schedule's nominal time; the run itself may start up to the jitter later).
 */
export function nextRunAt(cadence: Cadence, hourUtc: number, after: Date): Date {
  const days = CADENCE_DAYS[cadence];
  const start = Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), hourUtc);
  for (let offset = 0; offset <= 7; offset++) {
    const candidate = new Date(start + offset * 86_400_000);
    if (days.includes(candidate.getUTCDay()) && candidate.getTime() > after.getTime()) return candidate;
  }
  throw new Error(`no run within a week for ${cadence} at ${hourUtc}`);
}

// ------------------------------------------------------------------ candidates

export const SKIP_REASONS = ['no_email', 'invalid_email', 'free_mail', 'role_based', 'duplicate_email'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
export const SKIP_REASON_LABELS: Record<SkipReason, string> = {
  no_email: 'no e-mail',
  invalid_email: 'invalid e-mail',
  free_mail: 'free-mail address',
  role_based: 'role-based mailbox',
  duplicate_email: 'e-mail shared with another contact',
};

export interface CrmCandidate {
  contactId: string;
  email: string | null;
  name: string | null;
  score: number | null;
}

export interface CandidateVerdict extends CrmCandidate {
  /** Null: taken for research. */
  skipped: SkipReason | null;
  /** `duplicate_email`: the contact taken (or completed before) with the same e-mail; we never merge contacts. */
  duplicateOf?: string;
  /** Taken again by re-enrichment: when it was last enriched. */
  enrichedAt?: string;
}

/** What a sync run did, counted (run row, summary, digest and dashboard). */
export interface CrmRunCounts {
  found: number;
  skipped: Record<SkipReason, number>;
  researched: number;
  failed: number;
  creditsUsed: number;
}

export const emptySkipCounts = (): Record<SkipReason, number> => ({ no_email: 0, invalid_email: 0, free_mail: 0, role_based: 0, duplicate_email: 0 });

/** The link to a contact's record in HubSpot's app (`appBase` is https://app.hubspot.com, or a stand-in's). */
export const hubspotContactUrl = (appBase: string, portalId: number, contactId: string) => `${appBase.replace(/\/+$/, '')}/contacts/${portalId}/record/0-1/${contactId}`;
