// The steps of a sync run (services/crm/sync.ts) against PostgreSQL and the
// HubSpot and chat stand-ins, with research jobs recorded as the pipeline
// records them: candidates and filters, claims, properties, one note, chat
// messages, the digest in the outbox, and a second run that takes nobody
// already completed even while HubSpot's search still lags.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CandidateVerdict } from '../../domain/crm/crm.ts';
import { crmPropertyName } from '../../domain/crm/fields.ts';
import type { CrmRunPlan } from '../../domain/crm/sync-contract.ts';
import type { ResearchData } from '../../domain/research/reply.ts';
import { completedReplyJson } from '../../services/research/jobs.ts';
import { getCrmSettings, saveCrmSettings, type CrmSettingsInput } from '../../services/crm/settings.ts';
import { findAndClaimCandidates, previewCrmRun } from '../../services/crm/candidates.ts';
import { ensureCrmProperties, finishCrmRun, markContactFailed, startCrmRun, writeResearchedContact } from '../../services/crm/sync.ts';
import { startCrmFixture, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let crm: CrmFixture;
let accountId: number;
let productId: number;
const hook = '/services/T1/B1/steps';
const em = () => stack.orm.em.fork();

const settings = (overrides: Partial<CrmSettingsInput> = {}): CrmSettingsInput => ({
  cadence: 'daily', hourUtc: 8, scoreProperty: 'hubspotscore', minScore: 70, skipFreeMail: true, skipRoleBased: true, researchLimit: 5,
  chatWebhookUrl: `${crm.chat.url}${hook}`, digestEnabled: true, digestEmail: null, active: true, ...overrides,
});

function dataFor(contact: CandidateVerdict): ResearchData {
  return {
    prospect: {
      id: 1, name: contact.name, title: 'VP Sales', company: 'Acme', email: contact.email!, social_url: null, photo: null, last_role_start: null,
      summary: `Leads sales <script>alert("${contact.contactId}")</script> & growth.`, opening_talk: ['Your post on pricing', 'The Berlin office'], posts: [],
    },
    company: {
      id: 2, name: 'Acme <GmbH>', description: null, social_url: null, website: null, industry: 'software', hq: null, revenue: null, employees: '51-200',
      technologies: null, problems: null, services: null, icp: null, synergy_points: ['Forecasts', 'CRM hygiene'], discovery_questions: ['How do you forecast?'],
      clients: null, news: [{ summary: 'Raised a Series B', url: 'https://news.example/b', date: '2026-10' }], insights: null, posts: null,
    },
    decision_makers: [],
  };
}

async function recordResearch(contact: CandidateVerdict, index: number): Promise<string> {
  const researchId = `res_crmsteps${productId}x${contact.contactId}x${index}`;
  await em().execute(
    `insert into research_job (id, account_id, product_id, email, request, status, submitted_at, completed_at, completed_reply) values (?, ?, ?, ?, '{}', 'completed', now(), now(), ?)`,
    [researchId, accountId, productId, contact.email, completedReplyJson(researchId, { data: dataFor(contact), meta: {} }, new Date())],
  );
  return researchId;
}

async function runOnce(runId: string): Promise<{ plan: CrmRunPlan; taken: CandidateVerdict[] }> {
  const plan = await startCrmRun(crm.deps, { productId, runId, trigger: 'manual' });
  expect(plan.notRunReason).toBeNull();
  await ensureCrmProperties(crm.deps, plan);
  const search = await findAndClaimCandidates(crm.deps, plan);
  for (const [index, contact] of search.taken.entries()) {
    if (index === search.taken.length - 1 && runId === 'run-1') {
      await markContactFailed(crm.deps, plan, contact, { researchId: null, error: 'internal_error', outcome: 'failed' });
      continue;
    }
    await writeResearchedContact(crm.deps, plan, contact, await recordResearch(contact, index));
  }
  await finishCrmRun(crm.deps, plan, { status: 'completed', reason: null, creditsUsed: search.taken.length });
  return { plan, taken: search.taken };
}

beforeAll(async () => {
  stack = await startTestStack({ withWorker: false });
  crm = await startCrmFixture({ world: stack.providerWorld.world, em });
  accountId = await stack.createAccount('growth');
  await stack.createKey(accountId);
  [{ id: productId }] = await em().execute('select id from product_context where account_id = ?', [accountId]);
  await crm.connect(em(), accountId);
  await saveCrmSettings(em(), accountId, productId, settings(), new Date());
});
afterAll(async () => {
  await crm?.stop();
  await stack?.stop();
});

describe('a CRM sync run, step by step', () => {
  it('previews the highest scores first, skipping free-mail, role mailboxes, invalid and missing e-mails with their reasons', async () => {
    const stored = (await getCrmSettings(em(), productId))!;
    const preview = await previewCrmRun(crm.deps, { ...stored, researchLimit: 10 }, '4000001');
    expect(preview.taken.map((each) => each.score)).toEqual([99, 97, 95, 93, 91, 89, 87, 85, 83, 81]);
    // A preview creates nothing in HubSpot.
    expect(crm.hubspot.portal().groups.has(`pe_${productId}`)).toBe(false);
    const reasons = Object.fromEntries(preview.skipped.map((each) => [each.email ?? '(none)', each.skipped]));
    expect(reasons).toMatchObject({ 'jamie.rivera@gmail.com': 'free_mail', 'sam.okafor@outlook.com': 'free_mail', '(none)': 'no_email', 'not-an-address': 'invalid_email' });
    expect(Object.entries(reasons).filter(([, reason]) => reason === 'role_based').map(([email]) => email.split('@')[0]).sort()).toEqual(['info', 'sales']);
  });

  it('researches up to the limit, writes properties (status completed last), one escaped note and the chat messages, and queues one digest', async () => {
    const { taken } = await runOnce('run-1');
    expect(taken).toHaveLength(5);
    const portal = crm.hubspot.portal();
    expect(portal.groups.get(`pe_${productId}`)?.label).toContain('PipelineIQ');
    const status = crmPropertyName(productId, 'status');
    const researched = taken.slice(0, 4);
    for (const contact of researched) {
      const properties = portal.contacts.get(contact.contactId)!.properties;
      expect(properties[status]).toBe('completed');
      expect(properties[crmPropertyName(productId, 'opening_talk')]).toBe('Your post on pricing\nThe Berlin office');
      expect(properties[crmPropertyName(productId, 'company_news')]).toBe('2026-10 — Raised a Series B (https://news.example/b)');
      expect(properties[crmPropertyName(productId, 'enriched_at')]).toBeTruthy();
      // No HubSpot default property is written.
      expect(properties.industry).toBeUndefined();
      const notes = [...portal.notes.values()].filter((note) => note.contactIds.includes(contact.contactId));
      expect(notes).toHaveLength(1);
      expect(notes[0]!.properties.hs_note_body).toContain('&lt;script&gt;');
      expect(notes[0]!.properties.hs_note_body).not.toContain('<script>');
      expect(notes[0]!.properties.hs_note_body).toContain('Acme &lt;GmbH&gt;');
    }
    expect(portal.contacts.get(taken[4]!.contactId)!.properties[status]).toBe('failed');

    const messages = crm.chat.messages(hook);
    expect(messages.filter((message) => message.text.includes('researched') && !message.text.includes('contacts researched'))).toHaveLength(4);
    const summary = messages.at(-1)!;
    expect(summary.text).toBe('PipelineIQ: 4 HubSpot contacts researched');
    // Candidates are taken in score order until the limit: the skips counted are those met on the way.
    const skips: Array<{ skip_reason: string; n: number }> = await em().execute(`select skip_reason, count(*)::int as n from crm_sync_contact where run_id = 'run-1' and skip_reason is not null group by 1`);
    const bySkip = Object.fromEntries(skips.map((row) => [row.skip_reason, row.n]));
    expect(bySkip).toEqual({ free_mail: 2, no_email: 1, invalid_email: 1, role_based: 1 });
    expect(JSON.stringify(summary.blocks)).toContain('1 no e-mail, 1 invalid e-mail, 2 free-mail address, 1 role-based mailbox');

    const [run] = await em().execute('select * from crm_sync_run where id = ?', ['run-1']);
    expect(run).toMatchObject({ status: 'completed', researched: 4, failed: 1, credits_used: 5 });
    const digests = await em().execute(`select recipient, subject, text from email_outbox where dedupe_key = 'crm-digest:run-1'`);
    expect(digests).toHaveLength(1);
    expect(digests[0].subject).toBe('PipelineIQ: 4 HubSpot contacts researched');
    expect(digests[0].text).toContain(`${crm.hubspot.url}/contacts/4000001/record/0-1/${taken[0]!.contactId}`);
  });

  it('a second run takes nobody completed even while search still lags, retries the failed one, and makes no second note', async () => {
    crm.hubspot.setFaults({ searchLagMs: 60_000 });
    const notesBefore = crm.hubspot.portal().notes.size;
    const { taken } = await runOnce('run-2');
    const [first] = await em().execute(`select contact_id from crm_sync_contact where run_id = 'run-1' and outcome = 'failed'`);
    const researchedRows: Array<{ contact_id: string }> = await em().execute(`select contact_id from crm_sync_contact where run_id = 'run-1' and outcome = 'researched'`);
    const completed = researchedRows.map((row) => row.contact_id);
    expect(taken.map((each) => each.contactId)).toContain(first.contact_id);
    expect(taken.some((each) => completed.includes(each.contactId))).toBe(false);
    expect(crm.hubspot.portal().notes.size).toBe(notesBefore + taken.length);
    crm.hubspot.setFaults({ searchLagMs: 0 });
  });

  it('a repeated step of the same run (a retried activity) takes the same contacts and writes no second note or message', async () => {
    const plan = await startCrmRun(crm.deps, { productId, runId: 'run-2', trigger: 'manual' });
    const again = await findAndClaimCandidates(crm.deps, plan);
    const [runRow] = await em().execute(`select count(*)::int as n from crm_sync_contact where run_id = 'run-2' and skip_reason is null`);
    expect(again.taken).toHaveLength(runRow.n);
    const notes = crm.hubspot.portal().notes.size;
    const messages = crm.chat.messages(hook).length;
    const result = await writeResearchedContact(crm.deps, plan, again.taken[0]!, await recordResearch(again.taken[0]!, 99));
    expect(result.chat).toBe('already');
    expect(crm.hubspot.portal().notes.size).toBe(notes);
    expect(crm.chat.messages(hook).length).toBe(messages);
  });

  it("a retried write whose first try was cut off after HubSpot created the note finds that note instead of writing a second", async () => {
    const plan = await startCrmRun(crm.deps, { productId, runId: 'run-2', trigger: 'manual' });
    const { taken } = await findAndClaimCandidates(crm.deps, plan);
    const contact = taken[1]!;
    const [existing] = [...crm.hubspot.portal().notes.values()].filter((note) => note.contactIds.includes(contact.contactId));
    expect(existing).toBeDefined();
    // The first try's note exists in HubSpot, but its id never reached PostgreSQL.
    await em().execute('update crm_contact_state set note_id = null where product_id = ? and contact_id = ?', [productId, contact.contactId]);
    const notes = crm.hubspot.portal().notes.size;
    const result = await writeResearchedContact(crm.deps, plan, contact, await recordResearch(contact, 98), { isRetry: true });
    expect(result.noteId).toBe(existing!.id);
    expect(crm.hubspot.portal().notes.size).toBe(notes);
    const [state] = await em().execute('select note_id from crm_contact_state where product_id = ? and contact_id = ?', [productId, contact.contactId]);
    expect(state.note_id).toBe(existing!.id);
  });

  it('sets the properties up once: a later run spends one listing call on them, and creates again only one archived by hand, in one batch call', async () => {
    const plan = await startCrmRun(crm.deps, { productId, runId: 'run-2', trigger: 'manual' });
    const propertyCalls = async (since: string) => {
      const { calls } = (await (await fetch(`${crm.hubspot.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as { calls: Array<{ kind: string; method: string; path: string; status: number }> };
      return calls.filter((call) => call.kind === 'properties').map((call) => `${call.method} ${call.path} ${call.status}`);
    };
    const since = new Date().toISOString();
    await ensureCrmProperties(crm.deps, plan);
    expect(await propertyCalls(since)).toEqual(['GET /crm/v3/properties/contacts 200']);

    const openingTalk = crmPropertyName(productId, 'opening_talk');
    crm.hubspot.portal().properties.get(openingTalk)!.archived = true;
    const later = new Date().toISOString();
    await ensureCrmProperties(crm.deps, plan);
    // The missing one in one batch call, beside the group (which exists: 409).
    expect(await propertyCalls(later)).toEqual([
      'GET /crm/v3/properties/contacts 200', 'POST /crm/v3/properties/contacts/groups 409', 'POST /crm/v3/properties/contacts/batch/create 201',
    ]);
    expect(crm.hubspot.portal().properties.get(openingTalk)).toMatchObject({ archived: false, groupName: `pe_${productId}`, type: 'string', fieldType: 'textarea' });
  });

  it('a webhook answering 410 is disabled and the owner told once', async () => {
    await fetch(`${crm.chat.url}/__admin/hooks`, { method: 'POST', body: JSON.stringify({ hook, error: 'channel_is_archived' }) });
    await saveCrmSettings(em(), accountId, productId, settings({ researchLimit: 1, minScore: 0 }), new Date());
    await runOnce('run-3');
    const [row] = await em().execute('select chat_webhook_disabled_at, chat_webhook_disabled_reason from crm_integration where product_id = ?', [productId]);
    expect(row.chat_webhook_disabled_reason).toBe('410 channel_is_archived');
    const told = await em().execute(`select subject from email_outbox where dedupe_key like 'crm-webhook-disabled:${productId}:%'`);
    expect(told).toHaveLength(1);
    // The next run posts nothing to it.
    const plan = await startCrmRun(crm.deps, { productId, runId: 'run-4', trigger: 'manual' });
    expect(plan.settings!.chatWebhookUrl).toBeNull();
    await fetch(`${crm.chat.url}/__admin/hooks`, { method: 'POST', body: JSON.stringify({ hook }) });
  });
});
