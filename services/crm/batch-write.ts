// A run's contacts written back in batches (docs/crm.md#batch-writes), through
// the CRM's adapter: per flush, one write of each contact's fields with status
// `completed` (failed ones get `failed`), split by the CRM into the calls it
// takes (HubSpot 100 contacts a call, Salesforce 200, Pipedrive one), then
// the notes of the contacts written (each on its contact, named by the
// contact id): a record the CRM refused never gets a note. The CRM answers
// each contact on its own: one refused contact fails alone, and one it will
// never let us write (converted, deleted, archived) is `refused` in the
// ledger, so no later run takes and charges it again. Every step is safe to
// repeat: the ledger knows which contacts a flush already finished and which
// notes it created; a retried flush reads back from the CRM what an earlier
// try did without our knowing (a note create is not idempotent), so no note
// is written twice.
import type { EntityManager } from '@mikro-orm/postgresql';
import { crmContentValues, crmFieldValues, crmNoteHtml } from '../../domain/crm/messages.ts';
import type { ContactWriteItem, ContactWriteOutcome, CrmRunPlan } from '../../domain/crm/sync-contract.ts';
import { decideMappings, mappedWrites, propertiesToRead, type MappingDecision } from '../../domain/crm/write-rules.ts';
import type { ResearchData } from '../../domain/research/reply.ts';
import { CRM_PROVIDER_LABELS, type BatchOutcomes, type ContactWrite, type CrmContact, type OwnValues } from '../../integrations/crm/adapter.ts';
import { CrmRejected } from '../../integrations/crm/errors.ts';
import { storedMappableProperties } from './portal-metadata.ts';
import { crmAdapterFor, type CrmSyncDeps } from './sync.ts';

/**
 * The CRM refusing a whole batch call (a 400 for the request) fails its
 * inputs, not the run; a 403 (a scope or a right missing) and a dead grant
 * (401) end the run, as the CRM staying down does (thrown).
 */
async function perInput<T>(keys: string[], run: () => Promise<BatchOutcomes<T>>): Promise<BatchOutcomes<T>> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof CrmRejected) || error.status === 403) throw error;
    return { done: new Map(), refused: new Map(keys.map((key) => [key, error.message])) };
  }
}

export async function writeContactsBatch(deps: CrmSyncDeps, plan: CrmRunPlan, items: ContactWriteItem[], options: { isRetry: boolean }): Promise<ContactWriteOutcome[]> {
  const settings = plan.settings!;
  const em = deps.em();
  const now = deps.clock();
  const ids = items.map((item) => item.contact.contactId);
  if (ids.length === 0) return [];
  const rows: Array<{ contact_id: string; outcome: string; error: string | null; note_id: string | null }> = await em.execute(
    `select c.contact_id, c.outcome, c.error, s.note_id from crm_sync_contact c
     left join crm_contact_state s on s.product_id = ? and s.portal_id = ? and s.contact_id = c.contact_id and s.run_id = c.run_id
     where c.run_id = ? and c.contact_id in (${ids.map(() => '?').join(',')})`,
    [settings.productId, plan.portalId, plan.runId, ...ids],
  );
  const outcomes = new Map<string, ContactWriteOutcome>();
  // Finished by an earlier try of this flush (its answer to the workflow was lost): nothing to do again.
  for (const row of rows) {
    if (row.outcome === 'researched' || row.outcome === 'failed' || row.outcome === 'not_researched') outcomes.set(row.contact_id, { contactId: row.contact_id, outcome: row.outcome, error: row.error });
  }
  const noteIds = new Map(rows.filter((row) => row.note_id).map((row) => [row.contact_id, row.note_id!]));
  const todo = items.filter((item) => !outcomes.has(item.contact.contactId));
  const failed = new Map<string, ContactWriteItem>(todo.filter((item) => item.outcome === 'failed').map((item) => [item.contact.contactId, item]));
  const fail = (item: ContactWriteItem, error: string) => failed.set(item.contact.contactId, { ...item, outcome: 'failed', error });

  const data = await researchDataOf(em, todo.filter((item) => item.outcome === 'researched').map((item) => item.researchId!));
  const researched = new Map<string, { item: ContactWriteItem; data: ResearchData; html: string }>();
  for (const item of todo.filter((each) => each.outcome === 'researched')) {
    const found = data.get(item.researchId!);
    if (found) researched.set(item.contact.contactId, { item, data: found, html: crmNoteHtml(plan.productName, found) });
    else fail(item, `research ${item.researchId} is not completed`);
  }

  const crm = await crmAdapterFor(deps, settings);
  const label = CRM_PROVIDER_LABELS[crm.provider];
  // Contacts the CRM will never let us write: failed with its reason, and `refused` in the ledger.
  const refusedForGood = new Set<string>();
  const failForGood = (item: ContactWriteItem, reason: string) => {
    refusedForGood.add(item.contact.contactId);
    fail(item, `${label} refused the write for good (not tried again): ${reason}`);
  };
  const toRead = propertiesToRead(settings.propertyMappings);
  const alreadyWritten = new Set<string>();
  let current = new Map<string, CrmContact>();
  if (researched.size > 0 && (options.isRetry || toRead.length > 0)) {
    current = await crm.readContacts(settings.productId, [...researched.keys()], toRead);
    for (const [contactId, { item }] of researched) {
      if (!current.has(contactId)) {
        researched.delete(contactId);
        failForGood(item, `the contact is no longer in ${label} (deleted or merged).`);
      }
    }
  }
  if (options.isRetry && researched.size > 0) {
    const [run]: Array<{ started_at: Date }> = await em.execute('select started_at from crm_sync_run where id = ?', [plan.runId]);
    const startedAt = new Date(run!.started_at);
    // Completed in the CRM since this run began: an earlier try wrote it; only our records missed it.
    for (const contactId of researched.keys()) {
      const own = current.get(contactId)!.own;
      if (own.status === 'completed' && Date.parse(own.enriched_at ?? '') >= startedAt.getTime()) alreadyWritten.add(contactId);
    }
    // A note an earlier try created whose id never reached us: found by its body among the contact's notes made since the run began.
    const unknown = [...researched.keys()].filter((contactId) => !noteIds.has(contactId));
    if (unknown.length > 0) {
      const adopted = [...(await crm.findNotes(unknown.map((contactId) => ({ contactId, html: researched.get(contactId)!.html })), startedAt))];
      for (const [contactId, noteId] of adopted) noteIds.set(contactId, noteId);
      await saveNoteIds(em, plan, adopted);
    }
  }

  // Our own fields always; beside them what the write rules allow; status last of all, in the same write.
  const targets = settings.propertyMappings.length > 0 ? new Map((await storedMappableProperties(em, settings.accountId, plan.portalId!)).map((property) => [property.name, property])) : new Map();
  const decisions = new Map<string, MappingDecision[]>();
  const ownValues = (contactId: string): OwnValues => ({ ...crmContentValues(researched.get(contactId)!.data), enriched_at: now.toISOString(), status: 'completed' });
  const inputs: ContactWrite[] = [
    ...[...researched.keys()].filter((contactId) => !alreadyWritten.has(contactId)).map((contactId) => {
      const made = decideMappings(settings.propertyMappings, targets, crmFieldValues(researched.get(contactId)!.data), current.get(contactId)?.mapped ?? {});
      decisions.set(contactId, made);
      return { id: contactId, own: ownValues(contactId), mapped: mappedWrites(made) };
    }),
    ...[...failed.keys()].filter((contactId) => !refusedForGood.has(contactId)).map((contactId) => ({ id: contactId, own: { status: 'failed' }, mapped: {} })),
  ];
  const warnings = new Map<string, string>();
  if (inputs.length > 0) {
    const updated = await perInput(inputs.map((input) => input.id), () => crm.updateContacts(settings.productId, inputs));
    const isForGood = (contactId: string) => updated.refusedForGood?.has(contactId) ?? false;
    // A refused mapped field (changed in the CRM since) must not cost the contact its own fields: those alone once more.
    const retried = [...updated.refused.keys()].filter((contactId) => researched.has(contactId) && !isForGood(contactId) && Object.keys(mappedWrites(decisions.get(contactId) ?? [])).length > 0);
    const again = retried.length > 0 ? await perInput(retried, () => crm.updateContacts(settings.productId, retried.map((contactId) => ({ id: contactId, own: ownValues(contactId), mapped: {} })))) : null;
    for (const [contactId, reason] of updated.refused) {
      const entry = researched.get(contactId);
      if (!entry) {
        // A failed contact the CRM would not mark failed: it stays failed with us, and is tried again next run,
        // unless the CRM will never take it.
        if (isForGood(contactId)) failForGood(failed.get(contactId)!, reason);
        continue;
      }
      researched.delete(contactId);
      if (isForGood(contactId)) failForGood(entry.item, reason);
      else if (again?.done.has(contactId)) {
        researched.set(contactId, entry);
        warnings.set(contactId, `${label} refused the mapped fields: ${reason}`);
      } else if (again?.refusedForGood?.has(contactId)) failForGood(entry.item, again.refused.get(contactId) ?? reason);
      else fail(entry.item, `${label} refused the write: ${again?.refused.get(contactId) ?? reason}`);
    }
  }

  // The notes, of the contacts written only: a record the CRM refused gets none.
  const toNote = [...researched.keys()].filter((contactId) => !noteIds.has(contactId));
  if (toNote.length > 0) {
    const created = await perInput(toNote, () => crm.createNotes(toNote.map((contactId) => ({ key: contactId, contactId, html: researched.get(contactId)!.html, at: now }))));
    for (const [contactId, noteId] of created.done) noteIds.set(contactId, noteId);
    await saveNoteIds(em, plan, [...created.done]);
    // Its fields are written (and completed): the contact is researched, the missing note said beside it.
    for (const [contactId, reason] of created.refused) warnings.set(contactId, [warnings.get(contactId), `${label} refused the note: ${reason}`].filter(Boolean).join('; '));
  }

  for (const { item } of researched.values()) outcomes.set(item.contact.contactId, { contactId: item.contact.contactId, outcome: 'researched', error: warnings.get(item.contact.contactId) ?? null });
  for (const item of failed.values()) outcomes.set(item.contact.contactId, { contactId: item.contact.contactId, outcome: 'failed', error: item.error ?? 'failed' });
  for (const item of todo.filter((each) => each.outcome === 'not_researched')) {
    outcomes.set(item.contact.contactId, { contactId: item.contact.contactId, outcome: 'not_researched', error: item.error ?? 'not researched' });
  }
  const researchIds = new Map(items.map((item) => [item.contact.contactId, item.researchId]));
  await recordOutcomes(em, plan, todo.map((item) => outcomes.get(item.contact.contactId)!), researchIds, refusedForGood, now);
  return ids.map((contactId) => outcomes.get(contactId)!);
}

async function researchDataOf(em: EntityManager, researchIds: string[]): Promise<Map<string, ResearchData>> {
  if (researchIds.length === 0) return new Map();
  const rows: Array<{ id: string; completed_reply: string | null }> = await em.execute(
    `select id, completed_reply from research_job where status = 'completed' and id in (${researchIds.map(() => '?').join(',')})`,
    researchIds,
  );
  return new Map(rows.filter((row) => row.completed_reply).map((row) => [row.id, (JSON.parse(row.completed_reply!) as { data: ResearchData }).data]));
}

/** Note ids as soon as the CRM gave them: a try cut off after this writes no second note. */
async function saveNoteIds(em: EntityManager, plan: CrmRunPlan, notes: Array<[string, string]>): Promise<void> {
  if (notes.length === 0) return;
  await em.execute(
    `update crm_contact_state s set note_id = v.note_id from (values ${notes.map(() => '(?, ?)').join(', ')}) as v(contact_id, note_id)
     where s.product_id = ? and s.portal_id = ? and s.contact_id = v.contact_id and s.run_id = ?`,
    [...notes.flat(), plan.settings!.productId, plan.portalId, plan.runId],
  );
}

/**
 * The ledger and the run's contact list, in one transaction: `completed` (its
 * time the re-enrichment clock), `failed` (taken again by the next run), or
 * `refused` (the CRM will never let us write it: never taken again).
 */
async function recordOutcomes(
  em: EntityManager, plan: CrmRunPlan, outcomes: ContactWriteOutcome[], researchIds: Map<string, string | null>, refusedForGood: ReadonlySet<string>, now: Date,
): Promise<void> {
  const settings = plan.settings!;
  await em.transactional(async (tx) => {
    for (const outcome of outcomes) {
      const researchId = researchIds.get(outcome.contactId) ?? null;
      await tx.execute(
        `update crm_contact_state set status = ?, research_id = coalesce(?, research_id), updated_at = ?
         where product_id = ? and portal_id = ? and contact_id = ? and run_id = ? and status = 'in_progress'`,
        [outcome.outcome === 'researched' ? 'completed' : refusedForGood.has(outcome.contactId) ? 'refused' : 'failed', researchId, now, settings.productId, plan.portalId, outcome.contactId, plan.runId],
      );
      await tx.execute('update crm_sync_contact set outcome = ?, research_id = ?, error = ? where run_id = ? and contact_id = ?', [
        outcome.outcome, researchId, outcome.error?.slice(0, 500) ?? null, plan.runId, outcome.contactId,
      ]);
    }
  });
}
