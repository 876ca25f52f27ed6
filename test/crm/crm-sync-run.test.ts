// Whole sync runs (crmSyncWorkflow on a real worker, research through the
// real pipeline against the provider and model stand-ins) against the
// HubSpot and chat stand-ins: properties, notes, chat messages (paced per
// webhook), the digest (sent as the run ends), credits and counts; a second run; limits and filters; credits running out;
// a token revoked; pause and resume.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crmPropertyName } from '../../domain/crm/fields.ts';
import type { CrmSyncResult } from '../../domain/crm/sync-contract.ts';
import { createWorld } from '../../sandbox/provider-world/world.ts';
import { crmScheduleId, reconcileCrmSchedule } from '../../services/crm/schedules.ts';
import { saveCrmSettings, type CrmSettingsInput } from '../../services/crm/settings.ts';
import { connectedIntegration, crmTestSettings, startCrmFixture, startCrmRun, type CrmFixture } from '../helpers/crm-fixture.ts';
import { startTestCrmWorker, type TestCrmWorker } from '../helpers/crm-worker.ts';
import { startTestMailOutboxWorker, startTestMailSandbox, type TestMailOutboxWorker, type TestMailSandbox } from '../helpers/mail-sandbox.ts';
import { startTestStack, type TestStack } from '../helpers/test-stack.ts';

let stack: TestStack;
let crm: CrmFixture;
let crmWorker: TestCrmWorker;
let mail: TestMailSandbox;
let mailWorker: TestMailOutboxWorker;
const em = () => stack.orm.em.fork();
const hook = (name: string) => `/services/T1/B1/${name}`;
let runs = 0;

const integration = (overrides: Partial<CrmSettingsInput> = {}) => connectedIntegration(stack, crm, overrides);

async function run(productId: number): Promise<CrmSyncResult> {
  return (await startCrmRun(stack, productId, `crm-run-${productId}-test-${runs++}`)).result() as Promise<CrmSyncResult>;
}

const notesOf = (contactId: string) => [...crm.hubspot.portal().notes.values()].filter((note) => note.contactIds.includes(contactId));

beforeAll(async () => {
  // The stack's provider world has the default seed: the portal's people are its people.
  crm = await startCrmFixture({ world: createWorld(), em });
  stack = await startTestStack({});
  crmWorker = await startTestCrmWorker(stack, crm);
  // The outbox's worker without its minute Schedule: mail goes out only when nudged.
  mail = await startTestMailSandbox();
  mailWorker = await startTestMailOutboxWorker({ config: stack.config, orm: stack.orm, clock: () => new Date(), mail: mail.config });
}, 180_000);
afterAll(async () => {
  await mailWorker?.stop();
  await mail?.close();
  await crmWorker?.stop();
  await crm?.stop();
  await stack?.stop();
});


describe('a CRM sync run', () => {
  it('researches the top contacts and writes properties, one note each, chat messages, a digest; credits and counts add up', async () => {
    const { accountId, productId } = await integration({ chatWebhookUrl: `${crm.chat.url}${hook('full')}` });
    const since = new Date().toISOString();
    const result = await run(productId);
    expect(result.status).toBe('completed');
    expect(result.counts.researched + result.counts.failed).toBe(5);
    expect(result.counts.creditsUsed).toBe(5);

    const rows: Array<{ contact_id: string; outcome: string; research_id: string | null }> = await em().execute(
      `select c.contact_id, c.outcome, c.research_id from crm_sync_contact c where c.run_id = ? and c.skip_reason is null order by position`,
      [result.runId],
    );
    const researched = rows.filter((row) => row.outcome === 'researched');
    expect(researched).toHaveLength(result.counts.researched);
    for (const row of researched) {
      const contact = crm.hubspot.portal().contacts.get(row.contact_id)!;
      expect(contact.properties[crmPropertyName(productId, 'status')]).toBe('completed');
      expect(contact.properties[crmPropertyName(productId, 'prospect_summary')]).toBeTruthy();
      expect(notesOf(row.contact_id)).toHaveLength(1);
      const [job] = await em().execute('select status, account_id, product_id from research_job where id = ?', [row.research_id]);
      expect(job).toMatchObject({ status: 'completed', account_id: accountId, product_id: productId });
    }
    const messages = crm.chat.messages(hook('full'));
    expect(messages).toHaveLength(researched.length + 1);
    expect(messages.at(-1)!.text).toMatch(/HubSpot contacts? researched/);
    // Paced for the webhook, the summary in its turn too: about one a second, arrival jitter aside.
    const postedAt = messages.map((message) => Date.parse(message.at));
    for (const [index, at] of postedAt.slice(1).entries()) expect(at - postedAt[index]!).toBeGreaterThanOrEqual(900);
    const [account] = await em().execute('select credits_used from account where id = ?', [accountId]);
    expect(account.credits_used).toBe(result.counts.creditsUsed);
    const digests = await em().execute(`select subject from email_outbox where dedupe_key = ?`, [`crm-digest:${result.runId}`]);
    expect(digests).toHaveLength(1);
    // The digest goes out as the run ends, not at the outbox's next minute.
    const [{ owner_email: owner, finished_at: finishedAt }] = await em().execute(
      'select a.owner_email, r.finished_at from account a join crm_sync_run r on r.account_id = a.id where r.id = ?',
      [result.runId],
    );
    const digest = await mail.waitForMessage(owner, (message) => message.subject === digests[0].subject, 15_000);
    expect(Date.parse(digest.date) - new Date(finishedAt).getTime()).toBeLessThan(5_000);
    // Nothing stays in progress.
    const leftovers = await em().execute(`select count(*)::int as n from crm_contact_state where product_id = ? and status = 'in_progress'`, [productId]);
    expect(leftovers[0].n).toBe(0);
    // Written in batches: per flush one notes batch/create and one contacts batch/update, never a call per contact.
    const { calls } = (await (await fetch(`${crm.hubspot.url}/__admin/calls?since=${encodeURIComponent(since)}`)).json()) as { calls: Array<{ method: string; path: string; portalId: number | null }> };
    const writes = calls.filter((call) => call.method !== 'GET' && call.path.startsWith('/crm/v3/objects/')).map((call) => `${call.method} ${call.path}`);
    expect(writes.filter((call) => !call.endsWith('/search') && !call.includes('/batch/'))).toEqual([]);
    const flushes = writes.filter((call) => call === 'POST /crm/v3/objects/notes/batch/create').length;
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThanOrEqual(2);
    expect(writes.filter((call) => call === 'POST /crm/v3/objects/contacts/batch/update')).toHaveLength(flushes);

    // A second run researches nobody already completed and writes no second note.
    const notesBefore = crm.hubspot.portal().notes.size;
    const second = await run(productId);
    const secondRows: Array<{ contact_id: string }> = await em().execute(`select contact_id from crm_sync_contact where run_id = ? and skip_reason is null`, [second.runId]);
    expect(secondRows.some((row) => researched.some((done) => done.contact_id === row.contact_id))).toBe(false);
    expect(crm.hubspot.portal().notes.size).toBe(notesBefore + second.counts.researched);
  }, 180_000);

  it('respects the limit and the filters, counting the skips by reason', async () => {
    const { productId } = await integration({ researchLimit: 2, minScore: 90, skipFreeMail: true, skipRoleBased: false });
    const result = await run(productId);
    expect(result.counts.researched + result.counts.failed).toBeLessThanOrEqual(2);
    expect(result.counts.skipped.free_mail).toBeGreaterThanOrEqual(1);
    expect(result.counts.skipped.role_based).toBe(0);
  }, 180_000);

  it('stops cleanly when credits run out, and says so', async () => {
    const { accountId, productId } = await integration({ researchLimit: 5, chatWebhookUrl: `${crm.chat.url}${hook('credits')}` });
    await em().execute('update account set credits_used = credit_limit - 2 where id = ?', [accountId]);
    const result = await run(productId);
    expect(result.status).toBe('credits_exhausted');
    expect(result.counts.creditsUsed).toBe(2);
    expect(crm.chat.messages(hook('credits')).at(-1)!.text).toContain('out of credits');
    const [account] = await em().execute('select credits_used, credit_limit from account where id = ?', [accountId]);
    expect(account.credits_used).toBe(account.credit_limit);
  }, 180_000);

  it('a paused integration does not run; resumed, it does; its Schedule follows', async () => {
    const { productId } = await integration({ active: false, researchLimit: 1 });
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    expect((await stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe()).state.paused).toBe(true);
    expect((await run(productId)).status).toBe('not_run');
    await saveCrmSettings(em(), (await em().execute('select account_id from crm_integration where product_id = ?', [productId]))[0].account_id, productId, crmTestSettings({ researchLimit: 1 }), new Date());
    await reconcileCrmSchedule(stack.temporal, em(), productId, stack.config.temporal.taskQueue);
    expect((await stack.temporal.schedule.getHandle(crmScheduleId(productId)).describe()).state.paused).toBe(false);
    expect((await run(productId)).status).toBe('completed');
    await stack.temporal.schedule.getHandle(crmScheduleId(productId)).delete();
  }, 180_000);

  it('a grant revoked in HubSpot ends the run, pauses the integrations and tells the owner once', async () => {
    const { accountId, productId } = await integration({ researchLimit: 1 });
    await fetch(`${crm.hubspot.url}/__admin/uninstall`, { method: 'POST' });
    await fetch(`${crm.hubspot.url}/__admin/expire-access-tokens`, { method: 'POST' });
    const result = await run(productId);
    expect(result).toMatchObject({ status: 'failed', reason: 'token_revoked' });
    const [integrationRow] = await em().execute('select active, paused_reason from crm_integration where product_id = ?', [productId]);
    expect(integrationRow).toEqual({ active: false, paused_reason: 'token_revoked' });
    const mails = await em().execute(`select count(*)::int as n from email_outbox where dedupe_key like ?`, [`crm-token-revoked:${accountId}:%`]);
    expect(mails[0].n).toBe(1);
  }, 180_000);
});
