// The one boundary every CRM implements (docs/crm.md#crms). The sync run, its
// settings, preview, runs, Schedules, write rules, chat messages and mails
// are written once against it; HubSpot, Pipedrive and Salesforce each
// translate it into their own API. Our fields are named by what they are
// (`status`, `prospect_summary`, …: domain/crm/crm.ts CRM_FIELDS) on this side of
// the boundary; each CRM keeps them under its own keys (HubSpot `pe_<id>_…`
// properties, Pipedrive's hash keys, Salesforce `Pe_<id>_…__c` fields) and in
// its own formats (an option id, a date). The portal's own fields that a
// write rule maps onto, and the lead score, are named by the CRM's keys, as
// the CRM's metadata lists them.
import type { CrmField } from '../../domain/crm/fields.ts';
import type { MappableProperty } from '../../domain/crm/write-rules.ts';

export const CRM_PROVIDERS = ['hubspot', 'pipedrive', 'salesforce'] as const;
export type CrmProvider = (typeof CRM_PROVIDERS)[number];

export const CRM_PROVIDER_LABELS: Record<CrmProvider, string> = { hubspot: 'HubSpot', pipedrive: 'Pipedrive', salesforce: 'Salesforce' };

// ------------------------------------------------------------------ connect

/** What a completed consent gives: the tokens and what was connected. */
export interface CrmGrant extends CrmTokenSet {
  /**
   * The CRM's own id of what was connected, as text: a HubSpot portal (hub)
   * id, a Pipedrive company id, a Salesforce organization id.
   */
  portalId: string;
  /** Who approved, as the CRM names them (an e-mail address or a user name). */
  connectedUser: string;
  scopes: string[];
}

export interface CrmTokenSet {
  accessToken: string;
  /** The refresh token; when a refresh answers none, the one refreshed with stays. */
  refreshToken: string;
  expiresAt: Date;
  /**
   * Where this connection's API calls go, when the CRM says so per
   * connection (Pipedrive's `api_domain`, Salesforce's `instance_url`); null:
   * the configured API base.
   */
  apiBase: string | null;
}

export interface CrmOAuth {
  /**
   * The consent page's URL. `codeChallenge`: the PKCE challenge (S256) of a
   * verifier kept with the `state`, for CRMs that take one (`usesPkce`).
   */
  authorizeUrl(input: { state: string; redirectUri: string; codeChallenge: string | null }): string;
  readonly usesPkce: boolean;
  exchangeCode(input: { code: string; redirectUri: string; codeVerifier: string | null }): Promise<CrmGrant>;
  refresh(refreshToken: string, apiBase: string | null): Promise<CrmTokenSet>;
  /** Revokes the grant at the CRM; one already revoked or unknown counts as done. */
  revoke(refreshToken: string, apiBase: string | null): Promise<void>;
}

/** The stored connection an adapter works on. */
export interface CrmConnectionRef {
  accountId: number;
  provider: CrmProvider;
  portalId: string;
  apiBase: string | null;
}

export interface AccessTokenSource {
  /** The live access token; `refused`: the CRM said 401 to this one (refreshed unless another caller already did). */
  (options?: { refused?: string }): Promise<string>;
}

// ------------------------------------------------------------------ budget

/**
 * A CRM's short limits, each a window of calls (HubSpot 10 s and its
 * search second, Pipedrive's 2-second bursts, Salesforce's concurrent long
 * requests apart): one budget per connected portal, shared by every process
 * (services/crm/portal-budget.ts).
 */
export interface BudgetWindow {
  windowMs: number;
  max: number;
}

export interface CrmCallBudget {
  /** Resolves when one more call of `kind` fits its window and no hold-off is running, and counts it. */
  acquire(kind: string): Promise<void>;
  /**
   * No call of any kind goes to the portal, from any process, for `ms`: a 429,
   * or a longer allowance (a day's tokens, 24 hours of API requests) nearly
   * spent as the CRM's headers said. `reason`: why, for an allowance's long
   * hold-off (kept with it, so that every process's caller can say it).
   */
  holdOff(ms: number, reason?: string): Promise<void>;
}

// ------------------------------------------------------------------ contacts

export type OwnValues = Partial<Record<CrmField, string>>;

/** A contact as a run sees it: its e-mail and name, score, our fields, and the mapped fields asked for. */
export interface CrmContact {
  id: string;
  email: string | null;
  name: string | null;
  score: number | null;
  /** Our fields' values as we wrote them (status one of CRM_STATUS_VALUES, enriched_at ISO 8601); absent: empty. */
  own: OwnValues;
  /** The mapped portal fields' values, by the CRM's key; null: empty. */
  mapped: Record<string, string | null>;
}

export interface CandidateQuery {
  productId: number;
  /** The lead score field, by the CRM's key. */
  scoreField: string;
  minScore: number;
  /** Re-enrichment: completed contacts whose Enriched At is before this are candidates again; null: off. */
  reEnrichBefore: Date | null;
  /** Mapped portal fields to read with each contact. */
  mapped: string[];
}

export interface CandidatePage {
  /** Highest score first; each with an e-mail or not (the run says why it skips one). */
  contacts: CrmContact[];
  /** The next page's cursor; null on the last (or at the CRM's own cap on a listing). */
  next: string | null;
}

/** Each input's outcome of a batch: done (with what the CRM returned for it) or refused (why, in one line). */
export interface BatchOutcomes<R> {
  done: Map<string, R>;
  refused: Map<string, string>;
  /**
   * Of the refused, those the CRM will never let us write, whatever we send
   * (a converted Salesforce Lead, a deleted record, an archived HubSpot
   * contact, a deleted Pipedrive person): no later run is to take them again.
   * The rest of the refusals may pass another time.
   */
  refusedForGood?: Set<string>;
}

export interface ContactWrite {
  id: string;
  /** Our fields; `status` is written last, or in the same request as the rest. */
  own: OwnValues;
  /** Mapped portal fields, by the CRM's key, as the write rules decided. */
  mapped: Record<string, string>;
}

export interface NoteInput {
  /** Names the note in the outcomes: the contact id. */
  key: string;
  contactId: string;
  html: string;
  at: Date;
}

/** Our fields' state in the portal for one product. */
export type OwnFieldsState = { ready: true } | { ready: false; steps: string[] };

/** A field that can be a lead score, by the CRM's key and its label. */
export interface ScoreField {
  name: string;
  label: string;
}

export interface CrmAdapter {
  readonly provider: CrmProvider;
  readonly portalId: string;
  /** Records one write call takes (HubSpot 100, Salesforce 200, Pipedrive 1: no batch update); larger inputs are split. */
  readonly maxBatch: number;

  /** The fields that can be a lead score, and those a write rule can write, by label. */
  fieldMetadata(): Promise<{ scoreFields: ScoreField[]; mappableFields: MappableProperty[] }>;
  /**
   * Our fields for this product, created unless they exist (idempotent, safe
   * from several processes at once). Where the CRM's API cannot create them
   * for this user, `ready: false` with the admin's steps.
   */
  ensureOwnFields(product: { id: number; name: string }): Promise<OwnFieldsState>;
  /** One page of candidates: score at or above the minimum, status not `completed` (or due again), highest score first. */
  findCandidates(query: CandidateQuery, cursor: string | null): Promise<CandidatePage>;
  /** The contacts found, with our fields and these mapped ones; ids that name nothing are absent. */
  readContacts(productId: number, contactIds: string[], mapped: string[]): Promise<Map<string, CrmContact>>;
  /** Per contact id, written or refused. */
  updateContacts(productId: number, inputs: ContactWrite[]): Promise<BatchOutcomes<true>>;
  /**
   * Per key, the new note's id or why it was refused. Not repeated on an
   * answer lost to the network or a 5xx (the CRM may have made them): the
   * error goes up, and the caller looks with `findNotes` before trying again.
   */
  createNotes(inputs: NoteInput[]): Promise<BatchOutcomes<string>>;
  /** Per contact id, a note with this body made at or after `since` (one an earlier try made), or absent. */
  findNotes(inputs: Array<{ contactId: string; html: string }>, since: Date): Promise<Map<string, string>>;
  /** The contact's record in the CRM's own app. */
  contactUrl(contactId: string): string;
}

/**
 * Where a CRM whose field keys are its own choice (Pipedrive's hash keys)
 * keeps ours per connection and product (services/crm/field-keys.ts); CRMs
 * whose keys follow from the product (HubSpot, Salesforce) do not use it.
 */
export interface OwnFieldKeyStore {
  get(productId: number): Promise<Partial<Record<CrmField, string>> | null>;
  save(productId: number, keys: Partial<Record<CrmField, string>>): Promise<void>;
}
