// Pipedrive and Salesforce end to end, as HubSpot is proved in
// crm-sync-run.test.ts and crm-sync-faults.test.ts: crmSyncWorkflow on a real
// CRM worker (both CRMs configured, as `npm run dev` has them), research
// through the real pipeline, each CRM's stand-in over HTTP. A run researches,
// charges, writes and notes each contact once and names its CRM; a second run
// takes none of them again; 429s, the CRM's own allowances and an expired
// token mid-run are waited out with one refresh; the Schedule runs it;
// disconnecting revokes the grant and pauses everything. Salesforce's Leads,
// and a Salesforce user who may not create fields.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import type { CrmContact } from '../../integrations/crm/adapter.ts';
import { CrmAuthRevoked } from '../../integrations/crm/errors.ts';
import { decryptToken } from '../../lib/token-cipher.ts';
import { DashboardClient } from '../../scripts/lib/dashboard-client.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { connectionRef } from '../../services/crm/connections.ts';
import { crmScheduleId, reconcileCrmSchedule } from '../../services/crm/schedules.ts';
import { saveCrmSettings, type CrmSettingsInput } from '../../services/crm/settings.ts';
import { crmAdapterOf } from '../../services/crm/sync.ts';
import { connectedIntegration, crmTestSettings, startCrmRun } from '../helpers/crm-fixture.ts';
import { startCrmPortals, type PortalCrm, type TestPortal, type TestPortals } from '../helpers/crm-portals.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { creditsOf } from '../helpers/lists.ts';
import { startTestMailSandbox, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';
import { until } from '../helpers/until.ts';

let stack: TestStack;
let portals: TestPortals;
let crmWorker: TestCrmWorker;
let mail: TestMailSandbox;
const em = () => stack.orm.em.fork();
let runs = 0;
const schedules: number[] = [];

const integration = (portal: TestPortal, overrides: Partial<CrmSettingsInput> = {}) => connectedIntegration(stack, portal, { scoreProperty: portal.scoreField, ...overrides });
const start = (productId: number) => startCrmRun(stack, productId, `crm-run-${productId}-providers-${runs++}`);
const run = async (productId: number) => (await (await start(productId)).result()) as CrmSyncResult;

/** The run's contacts that were taken (not skipped), with their outcome and research. */
const takenOf = async (runId: string): Promise<Array<{ contact_id: string; outcome: string; research_id: string | null }>> =>
  em().execute('select contact_id, outcome, research_id from crm_sync_contact where run_id = ? and skip_reason is null order by position', [runId]);

/**
 * Each taken contact of the run researched once (one job, from the CRM) and
 * charged once; in the CRM our status `completed` with the content, and
 * exactly `notesBefore + 1` notes; nothing of the product left in progress.
 */
async function expectWrittenOnce(portal: TestPortal, result: CrmSyncResult, ids: { accountId: number; productId: number }, notesBefore: Map<string, number>): Promise<void> {
  const taken = await takenOf(result.runId);
  expect(taken.map((row) => row.outcome)).toEqual(taken.map(() => 'researched'));
  const jobs: Array<{ id: string; source: string; source_item: string; status: string }> = await em().execute(
    'select id, source, source_item, status from research_job where source_ref = ? order by source_item', [result.runId],
  );
  expect(jobs.map((job) => job.source_item)).toEqual(taken.map((row) => row.contact_id).sort());
  expect(jobs.every((job) => job.source === 'crm' && job.status === 'completed')).toBe(true);
  for (const row of taken) {
    expect(row.research_id).toBe(jobs.find((job) => job.source_item === row.contact_id)!.id);
    expect(portal.statusOf(ids.productId, row.contact_id), `status of ${row.contact_id}`).toBe('completed');
    expect(portal.ownValueOf(ids.productId, row.contact_id, 'prospect_summary')).toBeTruthy();
    expect(portal.ownValueOf(ids.productId, row.contact_id, 'enriched_at')).toBeTruthy();
    expect(portal.notesOf(row.contact_id) - (notesBefore.get(row.contact_id) ?? 0), `notes of ${row.contact_id}`).toBe(1);
  }
  const [left] = await em().execute(`select count(*)::int as n from crm_contact_state where product_id = ? and status = 'in_progress'`, [ids.productId]);
  expect(left.n).toBe(0);
}

beforeAll(async () => {
  portals = await startCrmPortals({
    world: createWorld(),
    em,
    // As the worker's tokens do: a dead or disconnected grant brings the products' Schedules along.
    onPaused: async (productIds) => {
      for (const productId of productIds) await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    },
  });
  mail = await startTestMailSandbox();
  // The API runs with both CRMs too (the CRM page's routes), and mails its sign-up links to the SMTP stand-in.
  stack = await startTestStack({ apiEnv: { ...mail.env, ...portals.env, AUTH_CLIENT_IP_HEADER: 'x-real-ip', DASHBOARD_MODE: 'off' } });
  // Schedule ids name the product, and a run's test files share one Temporal namespace: this file's products get ids no other file reaches.
  await em().execute(`select setval(pg_get_serial_sequence('product_context', 'id'), ?)`, [700_000 + Math.floor(Math.random() * 200_000)]);
  crmWorker = await startTestCrmWorker(stack, portals);
}, 180_000);
afterEach(() => stack?.providerWorld.setLatency(null));
afterAll(async () => {
  for (const productId of schedules) await stack?.temporal.schedule.getHandle(crmScheduleId(productId)).delete().catch(() => {});
  await crmWorker?.stop();
  await portals?.stop();
  await stack?.stop();
  await mail?.close();
});

describe.each(['pipedrive', 'salesforce'] as const)('%s end to end', (crm: PortalCrm) => {
  const portal = () => portals[crm];
  let first: { accountId: number; productId: number; researched: string[]; notes: Map<string, number> };

  it('a run researches the top contacts once each, writes our fields and one note each, and names the CRM', async () => {
    const hook = `/services/T9/${crm}/run`;
    const ids = await integration(portal(), { researchLimit: 3, chatWebhookUrl: `${portals.chat.url}${hook}` });
    const connection = (await connectionRef(em(), ids.accountId))!;
    // The score field the settings name is one the CRM's own metadata offers.
    expect((await crmAdapterOf(portals.deps, connection).fieldMetadata()).scoreFields.map((field) => field.name)).toContain(portal().scoreField);

    const notesBefore = portal().noteCounts();
    const result = await run(ids.productId);
    expect(result).toMatchObject({ status: 'completed', counts: { researched: 3, failed: 0, creditsUsed: 3 } });
    // The stand-ins' persons without e-mail and on free mail rank among the top scores: skipped, not researched.
    expect(result.counts.skipped.no_email).toBeGreaterThanOrEqual(1);
    expect(result.counts.skipped.free_mail).toBeGreaterThanOrEqual(1);
    await expectWrittenOnce(portal(), result, ids, notesBefore);
    const taken = await takenOf(result.runId);
    const credits = await creditsOf(stack, ids.accountId);
    expect(credits.used).toBe(3);
    expect([...credits.consumed].sort()).toEqual(taken.map((row) => row.research_id!).sort());

    // A chat message per contact linking its record in the CRM (a page the stand-in serves), then the summary naming the CRM.
    const messages = portals.chat.messages(hook);
    expect(messages).toHaveLength(4);
    for (const row of taken) {
      const link = crm === 'pipedrive' ? `${portal().url}/person/${row.contact_id}` : `${portal().url}/lightning/r/Contact/${row.contact_id}/view`;
      expect(messages.some((message) => JSON.stringify(message.blocks).includes(link))).toBe(true);
      expect((await fetch(link)).status).toBe(200);
    }
    expect(messages.at(-1)!.text).toContain(`3 ${portal().label} contacts researched`);
    const digests = await em().execute('select subject from email_outbox where dedupe_key = ?', [`crm-digest:${result.runId}`]);
    expect(digests).toEqual([{ subject: expect.stringContaining(`3 ${portal().label} contacts researched`) }]);
    const [row] = await em().execute('select provider, portal_id from crm_sync_run where id = ?', [result.runId]);
    expect(row).toEqual({ provider: crm, portal_id: connection.portalId });
    first = { ...ids, researched: taken.map((each) => each.contact_id), notes: portal().noteCounts() };
  }, 120_000);

  it('a second run takes none of them again: the CRM no longer offers them, and no second note is written', async () => {
    expect(first, 'the first run of this CRM').toBeDefined();
    const connection = (await connectionRef(em(), first.accountId))!;
    const candidates = await crmAdapterOf(portals.deps, connection).findCandidates(
      { productId: first.productId, scoreField: portal().scoreField, minScore: 70, reEnrichBefore: null, mapped: [] }, null,
    );
    const offered = candidates.contacts.map((contact: CrmContact) => contact.id);
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.filter((id) => first.researched.includes(id))).toEqual([]);

    await saveCrmSettings(em(), first.accountId, first.productId, crmTestSettings({ scoreProperty: portal().scoreField, researchLimit: 1 }), new Date());
    const notesBefore = portal().noteCounts();
    const second = await run(first.productId);
    expect(second).toMatchObject({ status: 'completed', counts: { researched: 1, creditsUsed: 1 } });
    const taken = await takenOf(second.runId);
    expect(taken).toHaveLength(1);
    expect(first.researched).not.toContain(taken[0]!.contact_id);
    for (const id of first.researched) expect(portal().notesOf(id)).toBe(first.notes.get(id));
    await expectWrittenOnce(portal(), second, first, notesBefore);
    expect((await creditsOf(stack, first.accountId)).used).toBe(4);
  }, 120_000);

  it('429s, the CRM\u2019s own limit and an expired access token mid-run are waited out: each contact written and noted once, one refresh', async () => {
    const ids = await integration(portal(), { researchLimit: 2 });
    // Slower providers keep the research going while the faults are set: the writes are still to come.
    stack.providerWorld.setLatency({ '*': { meanMs: 300 } });
    const handle = await start(ids.productId);
    // Mid-run: the contacts are taken and being researched.
    await until(async () => (await takenOf(handle.workflowId)).length === 2);
    const notesBefore = portal().noteCounts();
    const since = new Date().toISOString();
    await portal().expireAccessTokens();
    await portal().rateLimitNext(2);
    // Salesforce also refuses one call as its concurrent long-running requests limit (REQUEST_LIMIT_EXCEEDED): held off, retried.
    if (crm === 'salesforce') portals.salesforce.sandbox.setFaults({ requestLimitNext: 1, requestLimitKind: 'concurrent' });
    const result = (await handle.result()) as CrmSyncResult;
    expect(result).toMatchObject({ status: 'completed', counts: { researched: 2, failed: 0 } });

    const statuses = await statusesSince(crm, since);
    expect(statuses.filter((status) => status === 401).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(2);
    if (crm === 'salesforce') expect(statuses.filter((status) => status === 403)).toHaveLength(1);
    // The stored token still had long to live by our clock: only the CRM's 401 made us refresh, once.
    expect(await portal().tokenCalls(since)).toBe(1);
    await expectWrittenOnce(portal(), result, ids, notesBefore);
    expect((await creditsOf(stack, ids.accountId)).used).toBe(2);
    const [connection] = await em().execute('select status, refreshed_at from crm_connection where account_id = ?', [ids.accountId]);
    expect(connection.status).toBe('connected');
    expect(connection.refreshed_at).not.toBeNull();
  }, 120_000);

  it('the CRM\u2019s longer allowance down to our reserve holds every call off and the run waits; once it frees up, the run completes', async () => {
    const ids = await integration(portal(), { researchLimit: 2 });
    const { portalId } = (await connectionRef(em(), ids.accountId))!;
    await portal().spendAllowance();
    const since = new Date().toISOString();
    const handle = await start(ids.productId);
    // The first answer says so (Pipedrive's daily tokens, Salesforce's Limit Info and REQUEST_LIMIT_EXCEEDED): the step fails as unavailable, to be tried when the allowance is back.
    const pending = await until(async () => (await handle.describe()).raw.pendingActivities?.find((activity) => activity.lastFailure), 30_000);
    expect(pending.activityType?.name).toBe('crmEnsureProperties');
    expect(pending.lastFailure?.applicationFailureInfo?.type).toBe('crm_unavailable');
    const now = Date.now();
    // Pipedrive's day ends at midnight UTC; Salesforce's rolling 24 hours are waited out an hour at a time (SALESFORCE_API_HOLD_OFF_MINUTES).
    const backAt = crm === 'pipedrive' ? Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate() + 1) : now + 60 * 60_000;
    const [budget] = await em().execute('select min(held_until) as held from crm_portal_budget where provider = ? and portal_id = ?', [crm, portalId]);
    expect(Math.abs(new Date(budget.held).getTime() - backAt)).toBeLessThan(60_000);
    expect(timestampMs(pending.nextAttemptScheduleTime)).toBeGreaterThan(backAt - 60_000);
    // The run, still running, says why it waits and until when (the CRM page shows it beside "Running").
    const [waiting] = await em().execute('select status, waiting_until, waiting_reason from crm_sync_run where id = ?', [handle.workflowId]);
    expect(waiting.status).toBe('running');
    expect(Math.abs(new Date(waiting.waiting_until).getTime() - backAt)).toBeLessThan(60_000);
    expect(waiting.waiting_reason).toMatch(crm === 'pipedrive' ? /^Pipedrive's daily API token budget is down to the 30% kept for the company's own use/ : /^Salesforce's 24-hour API allowance/);
    // Held off: nothing more reaches the CRM meanwhile.
    const callsThen = (await statusesSince(crm, since)).length;
    expect(callsThen).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await statusesSince(crm, since)).length).toBe(callsThen);

    // The allowance is back: the CRM's count starts over and the hold-off's time has passed (the budget row stands in
    // for the clock), and Temporal tries the step now rather than when its retry timer fires.
    await portal().restoreAllowance();
    await em().execute('update crm_portal_budget set held_until = now() where provider = ? and portal_id = ?', [crm, portalId]);
    await stack.temporal.workflowService.resetActivity({ namespace: stack.config.temporal.namespace, execution: { workflowId: handle.workflowId }, type: 'crmEnsureProperties', identity: 'test' });
    const notesBefore = portal().noteCounts();
    const result = (await handle.result()) as CrmSyncResult;
    expect(result).toMatchObject({ status: 'completed', counts: { researched: 2, failed: 0, creditsUsed: 2 } });
    await expectWrittenOnce(portal(), result, ids, notesBefore);
  }, 120_000);

  let scheduled: { accountId: number; productId: number };

  it('the Schedule follows the saved settings and its run completes', async () => {
    scheduled = await integration(portal(), { researchLimit: 1 });
    schedules.push(scheduled.productId);
    await reconcileCrmSchedule(stack.temporal, em(), scheduled.productId, stack.config.temporal.taskQueue);
    const schedule = stack.temporal.schedule.getHandle(crmScheduleId(scheduled.productId));
    const described = await schedule.describe();
    expect(described.state.paused).toBe(false);
    expect(described.action.type === 'startWorkflow' && described.action.workflowType).toBe('crmSyncWorkflow');

    const notesBefore = portal().noteCounts();
    await schedule.trigger();
    const workflowId = await until(async () => (await schedule.describe()).info.recentActions[0]?.action.workflow.workflowId);
    const result = (await stack.temporal.workflow.getHandle(workflowId).result()) as CrmSyncResult;
    expect(result).toMatchObject({ status: 'completed', counts: { researched: 1 } });
    const [row] = await em().execute('select trigger, provider from crm_sync_run where id = ?', [result.runId]);
    expect(row).toEqual({ trigger: 'schedule', provider: crm });
    await expectWrittenOnce(portal(), result, scheduled, notesBefore);
  }, 120_000);

  it('disconnecting revokes the grant at the CRM and pauses the integration and its Schedule', async () => {
    expect(scheduled, 'the scheduled integration of this CRM').toBeDefined();
    const [stored] = await em().execute('select refresh_token, api_base from crm_connection where account_id = ?', [scheduled.accountId]);
    const refreshToken = decryptToken(portals.config.tokenKey, stored.refresh_token, 'refresh');
    const revokedBefore = (await portal().grants()).filter((grant) => grant.revoked).length;

    await portals.tokens.disconnect(scheduled.accountId);
    expect((await portal().grants()).filter((grant) => grant.revoked).length).toBe(revokedBefore + 1);
    // The CRM itself no longer honours the grant.
    await expect(portals.kits[crm]!.oauth.refresh(refreshToken, stored.api_base)).rejects.toBeInstanceOf(CrmAuthRevoked);
    const [connection] = await em().execute('select status, access_token, refresh_token from crm_connection where account_id = ?', [scheduled.accountId]);
    expect(connection).toEqual({ status: 'disconnected', access_token: null, refresh_token: null });
    const [row] = await em().execute('select active, paused_reason from crm_integration where product_id = ?', [scheduled.productId]);
    expect(row).toEqual({ active: false, paused_reason: 'disconnected' });
    expect((await stack.temporal.schedule.getHandle(crmScheduleId(scheduled.productId)).describe()).state.paused).toBe(true);
    expect((await run(scheduled.productId)).status).toBe('not_run');
  }, 60_000);
});

describe('Salesforce alone', () => {
  const salesforce = () => portals.salesforce;
  /** The product's fields on an object, as the org's metadata has them (granted or not). */
  const ownFieldsOn = (object: 'Contact' | 'Lead', productId: number) => [...salesforce().sandbox.org().objects.get(object)!.fields.keys()].filter((name) => name.startsWith(`Pe_${productId}_`));

  const leads = () => salesforce().sandbox.org().objects.get('Lead')!.records;

  it('with Leads chosen, a run reads and writes Leads, and leaves Contacts alone; a converted Lead is neither taken, charged nor noted', async () => {
    const ids = await integration(salesforce(), { researchLimit: 2, crmObject: 'Lead' });
    // The org's best Lead was converted: Salesforce keeps it queryable, with its score, and refuses every write to it.
    const converted = [...leads().values()].filter((lead) => lead.IsConverted === true);
    expect(converted.length).toBeGreaterThan(0);
    const notesBefore = salesforce().noteCounts();
    const result = await run(ids.productId);
    expect(result).toMatchObject({ status: 'completed', counts: { researched: 2, failed: 0, creditsUsed: 2 } });
    const taken = await takenOf(result.runId);
    expect(taken.map((row) => row.contact_id.slice(0, 3))).toEqual(['00Q', '00Q']);
    const found: Array<{ contact_id: string }> = await em().execute('select contact_id from crm_sync_contact where run_id = ?', [result.runId]);
    for (const lead of converted) {
      expect(found.map((row) => row.contact_id)).not.toContain(lead.Id);
      expect(salesforce().notesOf(lead.Id)).toBe(notesBefore.get(lead.Id) ?? 0);
    }
    expect((await creditsOf(stack, ids.accountId)).used).toBe(2);
    await expectWrittenOnce(salesforce(), result, ids, notesBefore);
    expect(ownFieldsOn('Lead', ids.productId)).toHaveLength(9);
    expect(ownFieldsOn('Contact', ids.productId)).toEqual([]);
    const [{ name: leadName }] = await em().execute('select name from crm_sync_contact where run_id = ? and contact_id = ?', [result.runId, taken[0]!.contact_id]);
    expect(leadName).toBe(salesforce().sandbox.org().objects.get('Lead')!.records.get(taken[0]!.contact_id)!.Name);
  }, 120_000);

  it('a user who may not create fields gets the admin\u2019s steps from the CRM page, and a run ends failed with them, writing nothing', async () => {
    // Through the API as the CRM page calls it: signed up, a product, Salesforce connected through its consent (PKCE).
    const email = `sf-admin-steps-${Date.now()}@example.com`;
    const client = await new DashboardClient(stack.apiUrl).signUpAndVerify(mail, email);
    const [{ id: accountId }] = await em().execute('select id from account where owner_email = ?', [email]);
    await em().execute(`update account set plan = 'growth' where id = ?`, [accountId]);
    const productId: number = (await client.post('/app/api/keys', { name: 'PipelineIQ', description: 'Revenue forecasting for B2B sales teams', keyFeatures: ['forecasting'], targetCustomers: ['sales leaders'], productUrl: null })).body.productId;
    const { authorizeUrl } = (await client.post('/app/api/crm/connect', { productId, provider: 'salesforce' })).body as { authorizeUrl: string };
    expect(new URL(authorizeUrl).searchParams.get('code_challenge_method')).toBe('S256');
    const approved = await fetch(`${salesforce().url}/__admin/approve?authorize_url=${encodeURIComponent(authorizeUrl)}`, { redirect: 'manual' });
    const callback = new URL(approved.headers.get('location')!);
    const back = await client.get(callback.pathname + callback.search);
    expect(back.headers.get('location')).toBe(`${stack.apiUrl}/app/crm/${productId}?connected=1`);

    salesforce().sandbox.setFaults({ lacksFieldRights: true });
    try {
      const fields = await client.post(`/app/api/crm/products/${productId}/fields`);
      expect(fields.status).toBe(200);
      expect(fields.body.ready).toBe(false);
      expect(fields.body.steps[0]).toMatch(/may not create fields/);
      expect(fields.body.steps.join('\n')).toContain(`Pe_${productId}_Status__c`);
      expect(ownFieldsOn('Contact', productId)).toEqual([]);

      const saved = await client.put(`/app/api/crm/products/${productId}/settings`, { ...crmTestSettings({ scoreProperty: salesforce().scoreField, researchLimit: 2 }), crmObject: 'Contact' });
      expect(saved.status).toBe(200);
      schedules.push(productId);
      const notesBefore = salesforce().noteCounts();
      const handle = await start(productId);
      const result = (await handle.result()) as CrmSyncResult;
      expect(result.status).toBe('failed');
      // The run's failure carries the steps the CRM page shows.
      const history = await handle.fetchHistory();
      const failures = (history.events ?? []).map((event) => event.activityTaskFailedEventAttributes?.failure).filter((failure) => failure);
      expect(failures.map((failure) => [failure!.applicationFailureInfo?.type, failure!.applicationFailureInfo?.nonRetryable])).toEqual([['crm_rejected', true]]);
      expect(failures[0]!.message).toContain('Object Manager \u2192 Contact');
      // Nothing written, nobody researched or charged.
      expect(await takenOf(result.runId)).toEqual([]);
      expect((await em().execute('select count(*)::int as n from research_job where account_id = ?', [accountId]))[0].n).toBe(0);
      expect((await creditsOf(stack, accountId)).used).toBe(0);
      expect(ownFieldsOn('Contact', productId)).toEqual([]);
      expect(salesforce().noteCounts()).toEqual(notesBefore);
    } finally {
      salesforce().sandbox.setFaults({ lacksFieldRights: false });
    }
    // Given the rights, the same button makes the fields.
    const ready = await client.post(`/app/api/crm/products/${productId}/fields`);
    expect(ready.body).toEqual({ ready: true });
    expect(ownFieldsOn('Contact', productId)).toHaveLength(9);
  }, 120_000);
});

describe.each(['pipedrive', 'salesforce'] as const)('%s: a record the CRM will never let us write', (crm: PortalCrm) => {
  const portal = () => portals[crm];
  /** Makes a record unwritable as a user would in the CRM (a Lead converted, a person deleted), or undoes it. */
  const setUnwritable = async (recordId: string, isUnwritable: boolean) => {
    if (crm === 'salesforce') portals.salesforce.sandbox.org().objects.get('Lead')!.records.get(recordId)!.IsConverted = isUnwritable;
    else if (isUnwritable) await fetch(`${portal().url}/__admin/persons/delete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ids: [Number(recordId)] }) });
    else portals.pipedrive.sandbox.company().persons.get(Number(recordId))!.is_deleted = false;
  };

  it('made so mid-run, it is refused for good with the CRM\u2019s reason: no note, not taken again by the next run, never charged twice', async () => {
    const ids = await integration(portal(), { researchLimit: 2, ...(crm === 'salesforce' ? { crmObject: 'Lead' as const } : {}) });
    stack.providerWorld.setLatency({ '*': { meanMs: 300 } });
    const handle = await start(ids.productId);
    await until(async () => (await takenOf(handle.workflowId)).length === 2);
    const [lost, kept] = (await takenOf(handle.workflowId)).map((row) => row.contact_id);
    const notesBefore = portal().noteCounts();
    await setUnwritable(lost!, true);
    const result = (await handle.result()) as CrmSyncResult;
    stack.providerWorld.setLatency(null);
    // Researched (the research was done, and its result stays on the Jobs page): one credit each, as for any contact.
    expect(result).toMatchObject({ status: 'completed', counts: { researched: 1, failed: 1, creditsUsed: 2 } });
    const rows: Array<{ contact_id: string; outcome: string; error: string | null }> = await em().execute('select contact_id, outcome, error from crm_sync_contact where run_id = ? order by position', [result.runId]);
    const refused = rows.find((row) => row.contact_id === lost)!;
    expect(refused.outcome).toBe('failed');
    expect(refused.error).toMatch(crm === 'salesforce'
      ? /^Salesforce refused the write for good \(not tried again\): CANNOT_UPDATE_CONVERTED_LEAD: cannot reference converted lead$/
      : /^Pipedrive refused the write for good \(not tried again\): Pipedrive answered 410: Person has been deleted$/);
    expect(portal().notesOf(lost!)).toBe(notesBefore.get(lost!) ?? 0);
    expect(portal().notesOf(kept!)).toBe((notesBefore.get(kept!) ?? 0) + 1);
    const [state] = await em().execute('select status from crm_contact_state where product_id = ? and contact_id = ?', [ids.productId, lost]);
    expect(state.status).toBe('refused');

    // Even were the CRM to offer it again, no later run takes it: no second research, no second charge, no note.
    await setUnwritable(lost!, false);
    const second = await run(ids.productId);
    expect(second).toMatchObject({ status: 'completed', counts: { researched: 2, failed: 0, creditsUsed: 2 } });
    const found: Array<{ contact_id: string }> = await em().execute('select contact_id from crm_sync_contact where run_id = ?', [second.runId]);
    expect(found.map((row) => row.contact_id)).not.toContain(lost);
    expect(portal().notesOf(lost!)).toBe(notesBefore.get(lost!) ?? 0);
    const jobs: Array<{ source_item: string }> = await em().execute('select source_item from research_job where account_id = ? and source_item = ?', [ids.accountId, lost]);
    expect(jobs).toHaveLength(1);
    expect((await creditsOf(stack, ids.accountId)).used).toBe(4);
    await setUnwritable(lost!, true);
  }, 180_000);
});

/** The HTTP statuses the stand-in answered API calls with since `since`. */
async function statusesSince(crm: PortalCrm, since: string): Promise<number[]> {
  if (crm === 'pipedrive') return portals.pipedrive.sandbox.calls().filter((call) => call.at >= since && call.kind !== 'oauth').map((call) => call.status);
  const { calls } = (await (await fetch(`${portals.salesforce.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as { calls: Array<{ kind: string; status: number }> };
  return calls.filter((call) => call.kind !== 'oauth').map((call) => call.status);
}

/** A protobuf Timestamp in ms since the epoch. */
function timestampMs(at: { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined): number {
  if (!at) return 0;
  const seconds = typeof at.seconds === 'number' ? at.seconds : (at.seconds?.toNumber() ?? 0);
  return seconds * 1000 + Math.floor((at.nanos ?? 0) / 1e6);
}
