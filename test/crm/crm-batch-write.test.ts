// A run's batch write (services/crm/batch-write.ts; docs/crm.md#batch-writes)
// and the write rules (docs/crm.md#write-rules) against PostgreSQL and the
// HubSpot stand-in, with research jobs recorded as the pipeline records
// them: two HubSpot calls per flush (the contacts, then the notes of those
// written), a contact HubSpot will never take (archived) failed for good with
// no note and never taken again, a retried flush that writes no second note, mapped properties by their
// rules, contacts sharing an e-mail flagged, and re-enrichment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CandidateVerdict } from '../../domain/crm/crm.ts';
import { CRM_FIELDS, crmPropertyName } from '../../domain/crm/fields.ts';
import type { ContactWriteItem, CrmRunPlan } from '../../domain/crm/sync-contract.ts';
import type { PropertyMapping } from '../../domain/crm/write-rules.ts';
import type { ResearchData } from '../../domain/research/reply.ts';
import { HubSpotUnavailable } from '../../integrations/hubspot/errors.ts';
import { writeContactsBatch } from '../../services/crm/batch-write.ts';
import { findAndClaimCandidates, previewCrmRun } from '../../services/crm/candidates.ts';
import { portalProperties } from '../../services/crm/portal-metadata.ts';
import { getCrmSettings } from '../../services/crm/settings.ts';
import { crmAdapterFor, ensureCrmProperties, finishCrmRun, startCrmRun } from '../../services/crm/sync.ts';
import { completedReplyJson } from '../../services/research/jobs.ts';
import { connectedIntegration, startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { addPortalNumberProperty } from '../helpers/hubspot-portal.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let crm: CrmFixture;
const em = () => stack.orm.em.fork();
let runs = 0;

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  crm = await startCrmFixture({ world: stack.providerWorld.world, em });
  addPortalNumberProperty(crm.hubspot);
}, 180_000);
afterAll(async () => {
  await crm?.stop();
  await stack?.stop();
});

function dataFor(contact: CandidateVerdict, index: number): ResearchData {
  return {
    prospect: {
      id: 1, name: contact.name, title: 'VP Sales', company: 'Acme', email: contact.email!, social_url: null, photo: null, last_role_start: null,
      summary: `Leads sales at Acme (${contact.contactId}).`, opening_talk: ['Your post on pricing'], posts: [],
    },
    company: {
      id: 2, name: 'Acme', description: null, social_url: null, website: null, industry: 'Software', hq: null, revenue: null, employees: index % 2 === 0 ? '1,200' : '51-200',
      technologies: null, problems: null, services: null, icp: null, synergy_points: ['Forecasts'], discovery_questions: ['How do you forecast?'],
      clients: null, news: [], insights: null, posts: null,
    },
    decision_makers: [],
  };
}

async function recordResearch(accountId: number, productId: number, contact: CandidateVerdict, index: number): Promise<string> {
  const researchId = `res_batch${productId}x${contact.contactId}x${runs}x${index}`;
  await em().execute(
    `insert into research_job (id, account_id, product_id, email, request, status, submitted_at, completed_at, completed_reply) values (?, ?, ?, ?, '{}', 'completed', now(), now(), ?)`,
    [researchId, accountId, productId, contact.email, completedReplyJson(researchId, { data: dataFor(contact, index), meta: {} }, new Date())],
  );
  return researchId;
}

/** A run up to its write: plan, properties, contacts claimed and researched (the last one's research failed when asked). */
async function runToWrite(accountId: number, productId: number, options: { lastFails?: boolean } = {}): Promise<{ plan: CrmRunPlan; items: ContactWriteItem[] }> {
  const plan = await startCrmRun(crm.deps, { productId, runId: `batch-run-${productId}-${runs++}`, trigger: 'manual' });
  await ensureCrmProperties(crm.deps, plan);
  const { taken } = await findAndClaimCandidates(crm.deps, plan);
  const items = await Promise.all(taken.map(async (contact, index): Promise<ContactWriteItem> => {
    if (options.lastFails && index === taken.length - 1) return { contact, outcome: 'failed', researchId: null, error: 'research failed' };
    return { contact, outcome: 'researched', researchId: await recordResearch(accountId, productId, contact, index), error: null };
  }));
  return { plan, items };
}

async function callsSince(since: string): Promise<string[]> {
  const { calls } = (await (await fetch(`${crm.hubspot.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as { calls: Array<{ method: string; path: string; status: number; kind: string }> };
  return calls.filter((call) => call.kind !== 'oauth').map((call) => `${call.method} ${call.path} ${call.status}`);
}

const contactOf = (id: string) => crm.hubspot.portal().contacts.get(id)!;
const notesOf = (id: string) => [...crm.hubspot.portal().notes.values()].filter((note) => note.contactIds.includes(id));

describe('a run\'s batch write', () => {
  it('a first run sets the product\'s properties up in three calls: the listing, the group, one batch of properties', async () => {
    const { productId } = await connectedIntegration(stack, crm);
    const plan = await startCrmRun(crm.deps, { productId, runId: `batch-setup-${productId}`, trigger: 'manual' });
    const since = new Date().toISOString();
    await ensureCrmProperties(crm.deps, plan);
    expect(await callsSince(since)).toEqual([
      'GET /crm/v3/properties/contacts 200', 'POST /crm/v3/properties/contacts/groups 201', 'POST /crm/v3/properties/contacts/batch/create 201',
    ]);
    const ours = [...crm.hubspot.portal().properties.values()].filter((property) => property.groupName === `pe_${productId}`);
    expect(ours.map((property) => property.name).sort()).toEqual(CRM_FIELDS.map((field) => crmPropertyName(productId, field.field)).sort());
  });

  it('writes a flush in two HubSpot calls: every contact with status completed (failed for a failed research), then the notes; a repeated flush calls nothing', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 5 });
    const { plan, items } = await runToWrite(accountId, productId, { lastFails: true });
    const since = new Date().toISOString();
    const outcomes = await writeContactsBatch(crm.deps, plan, items, { isRetry: false });
    expect(await callsSince(since)).toEqual(['POST /crm/v3/objects/contacts/batch/update 200', 'POST /crm/v3/objects/notes/batch/create 201']);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['researched', 'researched', 'researched', 'researched', 'failed']);
    const status = crmPropertyName(productId, 'status');
    for (const item of items.slice(0, 4)) {
      const properties = contactOf(item.contact.contactId).properties;
      expect(properties).toMatchObject({ [status]: 'completed', [crmPropertyName(productId, 'opening_talk')]: 'Your post on pricing' });
      expect(Date.parse(properties[crmPropertyName(productId, 'enriched_at')]!)).toBeGreaterThan(Date.now() - 60_000);
      expect(notesOf(item.contact.contactId)).toHaveLength(1);
    }
    expect(contactOf(items[4]!.contact.contactId).properties[status]).toBe('failed');
    const ledger: Array<{ contact_id: string; status: string; note_id: string | null }> = await em().execute('select contact_id, status, note_id from crm_contact_state where run_id = ?', [plan.runId]);
    expect(ledger.filter((row) => row.status === 'completed' && row.note_id)).toHaveLength(4);
    expect(ledger.filter((row) => row.status === 'failed')).toHaveLength(1);

    // The same flush again (its answer to the workflow was lost): our records say it is done.
    const again = new Date().toISOString();
    expect(await writeContactsBatch(crm.deps, plan, items, { isRetry: true })).toEqual(outcomes);
    expect(await callsSince(again)).toEqual([]);
  });

  it('a contact archived in HubSpot since the search fails alone (a 207 OBJECT_NOT_FOUND), for good: no note, never taken again; the others are written', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 3, minScore: 0 });
    const { plan, items } = await runToWrite(accountId, productId);
    const gone = items[1]!.contact.contactId;
    const kept = crm.hubspot.portal().contacts.get(gone)!;
    const notesBefore = notesOf(gone).length;
    crm.hubspot.portal().contacts.delete(gone);
    const since = new Date().toISOString();
    const outcomes = await writeContactsBatch(crm.deps, plan, items, { isRetry: false });
    crm.hubspot.portal().contacts.set(gone, kept);
    expect(await callsSince(since)).toEqual(['POST /crm/v3/objects/contacts/batch/update 207', 'POST /crm/v3/objects/notes/batch/create 201']);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['researched', 'failed', 'researched']);
    expect(outcomes[1]!.error).toMatch(/^HubSpot refused the write for good \(not tried again\): OBJECT_NOT_FOUND/);
    expect(notesOf(gone)).toHaveLength(notesBefore);
    const [row] = await em().execute('select outcome, error from crm_sync_contact where run_id = ? and contact_id = ?', [plan.runId, gone]);
    expect(row).toEqual({ outcome: 'failed', error: outcomes[1]!.error });
    const [state] = await em().execute('select status from crm_contact_state where product_id = ? and contact_id = ?', [productId, gone]);
    expect(state.status).toBe('refused');

    // Restored in HubSpot (search finds it again), it is still not taken: no second research, no second charge.
    await finishCrmRun(crm.deps, plan, { status: 'completed', reason: null, creditsUsed: 3 });
    const next = await startCrmRun(crm.deps, { productId, runId: `batch-run-${productId}-${runs++}`, trigger: 'manual' });
    const { taken } = await findAndClaimCandidates(crm.deps, next);
    expect(taken.map((contact) => contact.contactId)).not.toContain(gone);
    const settings = (await getCrmSettings(em(), productId))!;
    expect((await previewCrmRun(crm.deps, settings, String(crm.hubspot.portal().portalId))).taken.map((contact) => contact.contactId)).not.toContain(gone);
  });

  it('a flush retried after the notes\' answer was lost finds the notes HubSpot made and writes no second one', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 3, minScore: 0 });
    const { plan, items } = await runToWrite(accountId, productId);
    // Other products of this file wrote notes on the same contacts: count this run's.
    const before = new Map(items.map((item) => [item.contact.contactId, notesOf(item.contact.contactId).length]));
    const added = (contactId: string) => notesOf(contactId).length - before.get(contactId)!;
    crm.hubspot.setFaults({ on: 'note', answerLostNext: 1 });
    await expect(writeContactsBatch(crm.deps, plan, items, { isRetry: false })).rejects.toBeInstanceOf(HubSpotUnavailable);
    crm.hubspot.setFaults({ on: 'all' });
    for (const item of items) expect(added(item.contact.contactId)).toBe(1);
    const since = new Date().toISOString();
    const outcomes = await writeContactsBatch(crm.deps, plan, items, { isRetry: true });
    expect(outcomes.every((outcome) => outcome.outcome === 'researched')).toBe(true);
    // The contacts were written before the notes: read back completed, their notes found; nothing written again.
    expect(await callsSince(since)).toEqual([
      'POST /crm/v3/objects/contacts/batch/read 200', 'POST /crm/v4/associations/contacts/notes/batch/read 200', 'POST /crm/v3/objects/notes/batch/read 200',
    ]);
    for (const item of items) {
      expect(added(item.contact.contactId)).toBe(1);
      expect(contactOf(item.contact.contactId).properties[crmPropertyName(productId, 'status')]).toBe('completed');
    }
    const ledger: Array<{ contact_id: string; note_id: string }> = await em().execute('select contact_id, note_id from crm_contact_state where run_id = ?', [plan.runId]);
    expect(Object.fromEntries(ledger.map((row) => [row.contact_id, row.note_id]))).toEqual(Object.fromEntries(items.map((item) => [item.contact.contactId, notesOf(item.contact.contactId).at(-1)!.id])));
  });

  it('a flush retried after HubSpot took everything but our records missed it reads the contacts back and writes nothing again', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 2, minScore: 0 });
    const { plan, items } = await runToWrite(accountId, productId);
    await writeContactsBatch(crm.deps, plan, items, { isRetry: false });
    const notes = items.map((item) => notesOf(item.contact.contactId).length);
    // As if PostgreSQL had lost the flush's commit.
    await em().execute(`update crm_sync_contact set outcome = 'taken' where run_id = ?`, [plan.runId]);
    await em().execute(`update crm_contact_state set status = 'in_progress', note_id = null where run_id = ?`, [plan.runId]);
    const since = new Date().toISOString();
    const outcomes = await writeContactsBatch(crm.deps, plan, items, { isRetry: true });
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['researched', 'researched']);
    // Read back: completed, and each note found by its body (the note ids were lost with the commit).
    expect(await callsSince(since)).toEqual([
      'POST /crm/v3/objects/contacts/batch/read 200', 'POST /crm/v4/associations/contacts/notes/batch/read 200', 'POST /crm/v3/objects/notes/batch/read 200',
    ]);
    expect(items.map((item) => notesOf(item.contact.contactId).length)).toEqual(notes);
  });
});

describe('write rules', () => {
  const mappings: PropertyMapping[] = [
    { field: 'company_industry', property: 'industry', rule: 'fill_empty' },
    { field: 'company_employees', property: 'numberofemployees', rule: 'overwrite' },
    { field: 'prospect_summary', property: 'jobtitle', rule: 'never' },
  ];

  it('the preview says per contact what is written and what is left alone; the run writes our properties always and the mapped ones by their rules', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 4, minScore: 0, propertyMappings: mappings });
    const portalId = String(crm.hubspot.portal().portalId);
    await portalProperties(em(), { accountId, provider: 'hubspot', portalId, now: new Date() }, async () => (await crmAdapterFor(crm.deps, { accountId })).fieldMetadata());
    const settings = (await getCrmSettings(em(), productId))!;
    const first = await previewCrmRun(crm.deps, settings, portalId);
    const [a, b, c, d] = first.taken;
    // b already has an industry; d a number of employees.
    for (const [contact, values] of [[a!, { industry: '', numberofemployees: '' }], [b!, { industry: 'Retail' }], [c!, { industry: '' }], [d!, { numberofemployees: '40' }]] as const) {
      Object.assign(contactOf(contact.contactId).properties, values);
      Object.assign(contactOf(contact.contactId).indexed, values);
    }
    const jobtitles = first.taken.map((contact) => contactOf(contact.contactId).properties.jobtitle);
    const preview = await previewCrmRun(crm.deps, settings, portalId);
    const decision = (contactId: string, property: string) => {
      const made = preview.writes[contactId]!.find((each) => each.property === property)!;
      return made.action === 'leave' ? `leave: ${made.reason}` : made.action;
    };
    expect(['industry', 'numberofemployees', 'jobtitle'].map((property) => decision(a!.contactId, property))).toEqual(['fill', 'fill', 'leave: never']);
    expect(['industry', 'numberofemployees'].map((property) => decision(b!.contactId, property))).toEqual(['leave: has_value', 'fill']);
    expect(decision(d!.contactId, 'numberofemployees')).toBe('overwrite');

    const plan = await startCrmRun(crm.deps, { productId, runId: `batch-rules-${productId}`, trigger: 'manual' });
    await ensureCrmProperties(crm.deps, plan);
    const { taken } = await findAndClaimCandidates(crm.deps, plan);
    expect(taken.map((contact) => contact.contactId)).toEqual(preview.taken.map((contact) => contact.contactId));
    const items = await Promise.all(taken.map(async (contact, index): Promise<ContactWriteItem> => ({ contact, outcome: 'researched', researchId: await recordResearch(accountId, productId, contact, index), error: null })));
    const since = new Date().toISOString();
    const outcomes = await writeContactsBatch(crm.deps, plan, items, { isRetry: false });
    expect(outcomes.every((outcome) => outcome.outcome === 'researched')).toBe(true);
    // Fill-when-empty needs the contacts' values now: one read beside the two writes.
    expect(await callsSince(since)).toEqual([
      'POST /crm/v3/objects/contacts/batch/read 200', 'POST /crm/v3/objects/contacts/batch/update 200', 'POST /crm/v3/objects/notes/batch/create 201',
    ]);
    const after = taken.map((contact) => contactOf(contact.contactId).properties);
    expect(after.map((properties) => properties.industry)).toEqual(['Software', 'Retail', 'Software', 'Software']);
    // Employees "1,200" (even positions) is a number; "51-200" is not, and leaves the property as it was.
    expect(after.map((properties) => properties.numberofemployees ?? '')).toEqual(['1200', '', '1200', '40']);
    expect(after.map((properties) => properties.jobtitle)).toEqual(jobtitles);
    for (const properties of after) expect(properties[crmPropertyName(productId, 'prospect_summary')]).toMatch(/^Leads sales at Acme/);
  });

  it('a mapped property HubSpot refuses (archived since) costs the contact only that property: our own are written alone', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, {
      researchLimit: 2, minScore: 0, propertyMappings: [{ field: 'company_industry', property: 'website', rule: 'overwrite' }],
    });
    const portalId = String(crm.hubspot.portal().portalId);
    await portalProperties(em(), { accountId, provider: 'hubspot', portalId, now: new Date() }, async () => (await crmAdapterFor(crm.deps, { accountId })).fieldMetadata());
    const { plan, items } = await runToWrite(accountId, productId);
    crm.hubspot.portal().properties.get('website')!.archived = true;
    const since = new Date().toISOString();
    const outcomes = await writeContactsBatch(crm.deps, plan, items, { isRetry: false });
    crm.hubspot.portal().properties.get('website')!.archived = false;
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['researched', 'researched']);
    expect(outcomes[0]!.error).toMatch(/^HubSpot refused the mapped fields: VALIDATION_ERROR.*website/);
    expect((await callsSince(since)).filter((call) => call.includes('contacts/batch/update'))).toEqual([
      'POST /crm/v3/objects/contacts/batch/update 207', 'POST /crm/v3/objects/contacts/batch/update 200',
    ]);
    for (const item of items) expect(contactOf(item.contact.contactId).properties[crmPropertyName(productId, 'status')]).toBe('completed');
  });
});

describe('which contacts a run takes', () => {
  it('contacts sharing an e-mail are flagged, never researched or written twice, also against one completed before', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 3, minScore: 100 });
    const email = `shared.${productId}@acme-dup.example`;
    const added = await fetch(`${crm.hubspot.url}/__admin/contacts`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contacts: [{ email, firstname: 'Ada', hubspotscore: 150 }, { email: email.toUpperCase(), firstname: 'Ada (copy)', hubspotscore: 140 }] }),
    });
    const { ids } = (await added.json()) as { ids: string[] };
    const settings = (await getCrmSettings(em(), productId))!;
    const preview = await previewCrmRun(crm.deps, settings, String(crm.hubspot.portal().portalId));
    expect(preview.taken.map((contact) => contact.contactId)).toEqual([ids[0]]);
    expect(preview.skipped).toEqual([expect.objectContaining({ contactId: ids[1], skipped: 'duplicate_email', duplicateOf: ids[0] })]);

    const { plan, items } = await runToWrite(accountId, productId);
    expect(items.map((item) => item.contact.contactId)).toEqual([ids[0]]);
    await writeContactsBatch(crm.deps, plan, items, { isRetry: false });
    await finishCrmRun(crm.deps, plan, { status: 'completed', reason: null, creditsUsed: 1 });
    const [run] = await em().execute('select skipped from crm_sync_run where id = ?', [plan.runId]);
    expect(run.skipped.duplicate_email).toBe(1);

    // A third copy later: the first one is completed, so it is flagged against that one.
    const third = (await (await fetch(`${crm.hubspot.url}/__admin/contacts`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contacts: [{ email, firstname: 'Ada (third)', hubspotscore: 130 }] }),
    })).json()) as { ids: string[] };
    const later = await previewCrmRun(crm.deps, settings, String(crm.hubspot.portal().portalId));
    expect(later.taken).toEqual([]);
    expect(later.skipped.find((contact) => contact.contactId === third.ids[0])).toMatchObject({ skipped: 'duplicate_email', duplicateOf: ids[0] });
  });

  it('re-enrichment (off by default): a completed contact enriched longer ago than the chosen days is taken again, one credit, a new note', async () => {
    const { accountId, productId } = await connectedIntegration(stack, crm, { researchLimit: 1, minScore: 0 });
    const { plan, items } = await runToWrite(accountId, productId);
    await writeContactsBatch(crm.deps, plan, items, { isRetry: false });
    await finishCrmRun(crm.deps, plan, { status: 'completed', reason: null, creditsUsed: 1 });
    const done = items[0]!.contact.contactId;
    const notesBefore = notesOf(done).length;
    // Enriched 40 days ago, in HubSpot and in our records.
    const old = new Date(Date.now() - 40 * 86_400_000);
    const enrichedAt = crmPropertyName(productId, 'enriched_at');
    contactOf(done).properties[enrichedAt] = old.toISOString();
    contactOf(done).indexed[enrichedAt] = old.toISOString();
    await em().execute('update crm_contact_state set updated_at = ? where product_id = ? and contact_id = ?', [old, productId, done]);

    const settings = (await getCrmSettings(em(), productId))!;
    const off = await previewCrmRun(crm.deps, { ...settings, researchLimit: 50 }, String(crm.hubspot.portal().portalId));
    expect(off.taken.map((contact) => contact.contactId)).not.toContain(done);
    const on = { ...settings, researchLimit: 50, reEnrichAfterDays: 30 };
    const preview = await previewCrmRun(crm.deps, on, String(crm.hubspot.portal().portalId));
    expect(preview.taken.find((contact) => contact.contactId === done)).toMatchObject({ enrichedAt: old.toISOString() });
    expect((await previewCrmRun(crm.deps, { ...on, reEnrichAfterDays: 60 }, String(crm.hubspot.portal().portalId))).taken.map((contact) => contact.contactId)).not.toContain(done);

    await em().execute('update crm_integration set re_enrich_after_days = 30, min_score = 99, research_limit = 1 where product_id = ?', [productId]);
    contactOf(done).properties.hubspotscore = '999';
    contactOf(done).indexed.hubspotscore = '999';
    const again = await runToWrite(accountId, productId);
    expect(again.items.map((item) => item.contact.contactId)).toEqual([done]);
    await writeContactsBatch(crm.deps, again.plan, again.items, { isRetry: false });
    expect(notesOf(done).length - notesBefore).toBe(1);
    expect(Date.parse(contactOf(done).properties[enrichedAt]!)).toBeGreaterThan(Date.now() - 60_000);
  });
});
