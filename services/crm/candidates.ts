// Which contacts a run takes (docs/crm.md#how-a-run-works): the CRM's candidates
// (scores at or above the minimum whose status is not `completed`, and,
// with re-enrichment on, completed ones whose Enriched At is older than the
// chosen days), the e-mail filters, contacts sharing an e-mail flagged, the
// ledger's claims; and the preview, which shows the same contacts with what
// the write rules would write and leave alone (docs/crm.md#write-rules).
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CandidateVerdict, CrmSettings, SkipReason } from '../../domain/crm/crm.ts';
import type { CandidateSearch, CrmRunPlan } from '../../domain/crm/sync-contract.ts';
import { decideMappings, type MappingDecision } from '../../domain/crm/write-rules.ts';
import { isValidEmail, normaliseEmail } from '../../domain/research/email-address.ts';
import { classifyEmail } from '../../domain/research/email-classification.ts';
import type { CandidatePage, CrmAdapter } from '../../integrations/crm/adapter.ts';
import { storedMappableProperties } from './portal-metadata.ts';
import { crmAdapterFor, type CrmSyncDeps } from './sync.ts';

const DAY_MS = 86_400_000;

function verdictOf(settings: CrmSettings, email: string | null): SkipReason | null {
  if (!email || email.trim() === '') return 'no_email';
  const normalised = normaliseEmail(email);
  if (!isValidEmail(normalised)) return 'invalid_email';
  const classification = classifyEmail(normalised);
  if (settings.skipFreeMail && (classification.isFreeMail || classification.isDisposable)) return 'free_mail';
  if (settings.skipRoleBased && classification.isRoleBased) return 'role_based';
  return null;
}

/** What the ledger knows before a search: contacts not to take, and the e-mails of contacts completed before. */
export interface CandidateLedger {
  isDone(contactId: string): boolean;
  /** Normalised e-mail → the contact completed with it. */
  completedEmails: ReadonlyMap<string, string>;
}

export interface CandidateSearchWithValues extends CandidateSearch {
  /** Each contact's values of the properties the search read (the mapped ones among them), by contact id. */
  values: Map<string, Record<string, string | null>>;
}

/** Re-enrichment's cutoff: completed contacts enriched before it are due again; null when off. */
export const reEnrichCutoff = (settings: CrmSettings, now: Date): Date | null =>
  settings.reEnrichAfterDays === null ? null : new Date(now.getTime() - settings.reEnrichAfterDays * DAY_MS);

/**
 * The contacts the run would take, highest score first, as the CRM's
 * candidates come (docs/crm.md#how-a-run-works), paged until the limit is
 * reached. A contact whose e-mail an earlier one of the search (or one
 * completed before) has is flagged `duplicate_email`, never researched or
 * written twice: we never merge contacts.
 */
export async function searchCandidates(crm: CrmAdapter, settings: CrmSettings, ledger: CandidateLedger, now: Date): Promise<CandidateSearchWithValues> {
  const taken: CandidateVerdict[] = [];
  const skipped: CandidateVerdict[] = [];
  const values = new Map<string, Record<string, string | null>>();
  const emails = new Map<string, string>(ledger.completedEmails);
  const query = {
    productId: settings.productId, scoreField: settings.scoreProperty, minScore: settings.minScore, reEnrichBefore: reEnrichCutoff(settings, now),
    mapped: settings.propertyMappings.map((mapping) => mapping.property),
  };
  let cursor: string | null = null;
  let seen = 0;
  do {
    const page: CandidatePage = await crm.findCandidates(query, cursor);
    for (const contact of page.contacts) {
      if (taken.length >= settings.researchLimit) break;
      if (ledger.isDone(contact.id)) continue;
      seen++;
      const normalised = contact.email ? normaliseEmail(contact.email) : null;
      const verdict: CandidateVerdict = { contactId: contact.id, email: normalised, name: contact.name, score: contact.score, skipped: verdictOf(settings, contact.email) };
      const twin = normalised ? emails.get(normalised) : undefined;
      if (!verdict.skipped && twin !== undefined && twin !== contact.id) Object.assign(verdict, { skipped: 'duplicate_email', duplicateOf: twin });
      if (normalised && twin === undefined) emails.set(normalised, contact.id);
      if (contact.own.status === 'completed' && contact.own.enriched_at) verdict.enrichedAt = contact.own.enriched_at;
      values.set(contact.id, contact.mapped);
      (verdict.skipped ? skipped : taken).push(verdict);
    }
    cursor = page.next;
  } while (taken.length < settings.researchLimit && cursor !== null);
  return { taken, skipped, found: seen, values };
}

/**
 * The ledger of this product's contacts in this portal: completed ones (not
 * yet due again), ones held by a run still going, and ones the CRM refused
 * for good (a converted Lead, a deleted record: never charged twice) are not
 * taken.
 */
async function candidateLedger(em: EntityManager, settings: CrmSettings, portalId: string | number, now: Date): Promise<CandidateLedger> {
  const cutoff = reEnrichCutoff(settings, now);
  const done: Array<{ contact_id: string }> = await em.execute(
    `select s.contact_id from crm_contact_state s left join crm_sync_run r on r.id = s.run_id
     where s.product_id = ? and s.portal_id = ?
       and (s.status = 'refused' or (s.status = 'completed' and (?::timestamptz is null or s.updated_at >= ?::timestamptz)) or (s.status = 'in_progress' and r.status = 'running'))`,
    [settings.productId, portalId, cutoff, cutoff],
  );
  const emails: Array<{ email: string; contact_id: string }> = await em.execute(
    `select distinct on (c.email) c.email, s.contact_id from crm_contact_state s
     join crm_sync_contact c on c.run_id = s.run_id and c.contact_id = s.contact_id
     where s.product_id = ? and s.portal_id = ? and s.status = 'completed' and c.email is not null
     order by c.email, s.updated_at`,
    [settings.productId, portalId],
  );
  const doneIds = new Set(done.map((row) => row.contact_id));
  return { isDone: (id) => doneIds.has(id), completedEmails: new Map(emails.map((row) => [row.email, row.contact_id])) };
}

export interface CrmPreview extends CandidateSearch {
  /** Per taken contact (by id), what each mapped property would get: written (filled or overwritten) or left alone, and why. */
  writes: Record<string, MappingDecision[]>;
}

/** What a preview shows: the same search and filters, nothing recorded or claimed, and the write rules' decisions. */
export async function previewCrmRun(deps: CrmSyncDeps, settings: CrmSettings, portalId: string): Promise<CrmPreview> {
  const now = deps.clock();
  const ledger = await candidateLedger(deps.em(), settings, portalId, now);
  const search = await searchCandidates(await crmAdapterFor(deps, settings), settings, ledger, now);
  const targets = new Map((await storedMappableProperties(deps.em(), settings.accountId, portalId)).map((property) => [property.name, property]));
  const writes = Object.fromEntries(search.taken.map((contact) => [contact.contactId, decideMappings(settings.propertyMappings, targets, null, search.values.get(contact.contactId) ?? {})]));
  return { taken: search.taken, skipped: search.skipped, found: search.found, writes };
}

/**
 * Searches, filters, and claims the taken contacts for this run in the
 * ledger, recording every candidate on the run. A retry of the same run finds
 * its own claims and takes the same contacts again. A completed contact is
 * claimed again only when re-enrichment finds it due.
 */
export async function findAndClaimCandidates(deps: CrmSyncDeps, plan: CrmRunPlan): Promise<CandidateSearch> {
  const settings = plan.settings!;
  const em = deps.em();
  const already: Array<{ contact_id: string; email: string | null; name: string | null; score: string | null; outcome: string; skip_reason: SkipReason | null }> = await em.execute(
    'select contact_id, email, name, score, outcome, skip_reason from crm_sync_contact where run_id = ? order by position',
    [plan.runId],
  );
  if (already.length > 0) {
    const verdicts = already.map((row) => ({ contactId: row.contact_id, email: row.email, name: row.name, score: row.score === null ? null : Number(row.score), skipped: row.skip_reason }));
    return { taken: verdicts.filter((each) => !each.skipped), skipped: verdicts.filter((each) => each.skipped), found: verdicts.length };
  }
  const now = deps.clock();
  const cutoff = reEnrichCutoff(settings, now);
  const ledger = await candidateLedger(em, settings, plan.portalId!, now);
  const search = await searchCandidates(await crmAdapterFor(deps, settings), settings, ledger, now);
  return em.transactional(async (tx) => {
    const taken: CandidateVerdict[] = [];
    for (const contact of search.taken) {
      // Another run may have claimed it since the search: the claim decides.
      const claimed: unknown[] = await tx.execute(
        `insert into crm_contact_state (product_id, portal_id, contact_id, status, run_id, updated_at) values (?, ?, ?, 'in_progress', ?, ?)
         on conflict (product_id, portal_id, contact_id) do update set status = 'in_progress', run_id = excluded.run_id, updated_at = excluded.updated_at, chat_posted_at = null, note_id = null
         where crm_contact_state.status = 'failed' or crm_contact_state.run_id = excluded.run_id
           or (crm_contact_state.status = 'in_progress' and not exists (select 1 from crm_sync_run r where r.id = crm_contact_state.run_id and r.status = 'running'))
           or (crm_contact_state.status = 'completed' and crm_contact_state.updated_at < ?::timestamptz)
         returning contact_id`,
        [settings.productId, plan.portalId, contact.contactId, plan.runId, now, cutoff],
      );
      if (claimed.length > 0) taken.push({ contactId: contact.contactId, email: contact.email, name: contact.name, score: contact.score, skipped: null });
    }
    const all = [...taken.map((each) => ({ ...each, outcome: 'taken' })), ...search.skipped.map((each) => ({ ...each, outcome: 'skipped' }))];
    for (const [position, contact] of all.entries()) {
      await tx.execute(
        `insert into crm_sync_contact (run_id, contact_id, position, email, name, score, outcome, skip_reason) values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
        [plan.runId, contact.contactId, position, contact.email, contact.name, contact.score, contact.outcome, contact.skipped],
      );
    }
    await tx.execute('update crm_sync_run set found = ? where id = ?', [search.skipped.length + taken.length, plan.runId]);
    return { taken, skipped: search.skipped.map(({ contactId, email, name, score, skipped }) => ({ contactId, email, name, score, skipped })), found: search.skipped.length + taken.length };
  });
}
