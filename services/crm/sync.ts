// The steps of a CRM sync run (docs/decisions.md#crm-integration), each
// idempotent so that an activity retried after a crash repeats nothing that
// shows: the run row is keyed by the run's workflow id; candidates are
// claimed in a ledger per (product, portal, contact) (services/crm/candidates.ts),
// which also keeps a contact completed even while HubSpot's search still
// shows it (its index lags); the note id and the chat post are recorded
// there, so a retried write makes no second note or message. Runs write
// their contacts in batches (services/crm/batch-write.ts); the one-contact
// write below serves runs started before that.
import type { EntityManager } from '@mikro-orm/postgresql';
import { emptySkipCounts, type CandidateVerdict, type CrmRunCounts, type CrmSettings, type SkipReason } from '../../domain/crm/crm.ts';
import { crmPropertyName } from '../../domain/crm/fields.ts';
import { contactChatMessage, crmContentProperties, crmNoteHtml, runSummaryChatMessage, skippedSummary, type ChatMessage } from '../../domain/crm/messages.ts';
import type { CrmRunPlan } from '../../domain/crm/sync-contract.ts';
import { PLANS, type PlanName } from '../../domain/billing/plans.ts';
import type { ResearchData } from '../../domain/research/reply.ts';
import type { ChatPostResult } from '../../integrations/chat/slack-webhook.ts';
import { CRM_PROVIDER_LABELS, type CrmAdapter, type CrmConnectionRef, type CrmProvider } from '../../integrations/crm/adapter.ts';
import type { CrmConfig } from '../../integrations/crm/config.ts';
import { crmMetrics } from '../../lib/metrics.ts';
import { CrmAuthRevoked, CrmConfigRejected, CrmRejected, type CrmHoldOff } from '../../integrations/crm/errors.ts';
import type { CrmProviderKit, CrmProviderKits } from '../../integrations/crm/providers.ts';
import { createHubSpotCrm, type HubSpotCrm } from '../../integrations/hubspot/crm-client.ts';
import { crmDigestEmail, crmWebhookDisabledEmail } from '../../integrations/mail/templates/crm.ts';
import { connectionRef, type CrmTokens } from './connections.ts';
import { crmFieldKeyStore } from './field-keys.ts';
import type { PortalBudgets } from './portal-budget.ts';
import { disableChatWebhook, getCrmSettings } from './settings.ts';
import { postPacedChatMessage } from './chat-pacing.ts';
import { enqueueMail } from '../mail/outbox.ts';

export interface CrmSyncDeps {
  em(): EntityManager;
  clock(): Date;
  config: CrmConfig;
  kits: CrmProviderKits;
  tokens: CrmTokens;
  budgets: PortalBudgets;
  publicUrl: string;
  /** Shorter waits for tests: each CRM's retry policy, partly overridden. */
  retry?: Record<string, number>;
}

function kitOf(deps: CrmSyncDeps, provider: CrmProvider): CrmProviderKit {
  const kit = deps.kits[provider];
  if (!kit) throw new CrmConfigRejected(`${CRM_PROVIDER_LABELS[provider]} is not configured on this server`);
  return kit;
}

/** The adapter of a connection: its CRM's, with the portal's shared budget and the account's live token. */
export function crmAdapterOf(deps: CrmSyncDeps, connection: CrmConnectionRef, crmObject: string | null = null): CrmAdapter {
  const kit = kitOf(deps, connection.provider);
  return kit.adapter({
    connection,
    accessToken: async (options) => (await deps.tokens.accessToken(connection.accountId, options)).token,
    budget: deps.budgets.forPortal({ provider: connection.provider, portalId: connection.portalId }, kit.budgetWindows),
    fieldKeys: crmFieldKeyStore(deps.em, connection),
    crmObject,
    retry: deps.retry,
  });
}

/** The adapter of the account's live connection; CrmAuthRevoked when it has none. */
export async function crmAdapterFor(deps: CrmSyncDeps, settings: Pick<CrmSettings, 'accountId' | 'crmObject'>): Promise<CrmAdapter> {
  const connection = await connectionRef(deps.em(), settings.accountId);
  if (!connection) throw new CrmAuthRevoked(`account ${settings.accountId} has no CRM connection`);
  return crmAdapterOf(deps, connection, settings.crmObject ?? null);
}

/** A contact's record in its CRM, for chat messages and digests; null when the account has no connection any more. */
async function recordUrlOf(deps: CrmSyncDeps, accountId: number): Promise<((contactId: string) => string) | null> {
  const connection = await connectionRef(deps.em(), accountId);
  const kit = connection ? deps.kits[connection.provider] : undefined;
  return connection && kit ? (contactId) => kit.recordUrl(connection, contactId) : null;
}

/** HubSpot's client for runs started before batch writes (their one-contact writes; docs/crm.md#batch-writes). */
export function crmClientFor(deps: CrmSyncDeps, accountId: number, portalId: number | string): HubSpotCrm {
  const kit = kitOf(deps, 'hubspot');
  return createHubSpotCrm({
    apiBase: deps.config.hubspot!.apiBase,
    portalId: Number(portalId),
    accessToken: async (options) => (await deps.tokens.accessToken(accountId, options)).token,
    budget: deps.budgets.forPortal({ provider: 'hubspot', portalId: String(portalId) }, kit.budgetWindows),
    retry: deps.retry,
  });
}

/** Records the run (once per run id) and reads what it works with; says why when it cannot run. */
export async function startCrmRun(
  deps: CrmSyncDeps,
  input: { productId: number; runId: string; trigger: 'schedule' | 'manual'; queueForTurn?: boolean },
): Promise<CrmRunPlan> {
  const em = deps.em();
  const settings = await getCrmSettings(em, input.productId);
  const [context]: Array<{
    account_id: number; name: string; plan: PlanName; owner_email: string; deletion_requested_at: Date | null; provider: CrmProvider | null; portal_id: string | null; status: string | null;
  }> =
    await em.execute(
      `select p.account_id, p.name, a.plan, a.owner_email, a.deletion_requested_at, c.provider, c.portal_id, c.status
       from product_context p join account a on a.id = p.account_id left join crm_connection c on c.account_id = p.account_id where p.id = ?`,
      [input.productId],
    );
  const why = !context || !settings
    ? 'no_settings'
    : context.deletion_requested_at
      ? 'account_deleted'
      : !PLANS[context.plan].hasCrmIntegration
        ? 'plan'
        : context.status !== 'connected'
          ? 'not_connected'
          : !settings.active
            ? 'paused'
            : null;
  const portalId = context?.portal_id ?? null;
  const provider = context?.provider ?? 'hubspot';
  if (context) {
    await em.execute(
      `insert into crm_sync_run (id, product_id, account_id, provider, portal_id, trigger, status, reason, started_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (id) do nothing`,
      // A run that takes its turn first (services/crm/run-turns.ts) is recorded waiting for it.
      [input.runId, input.productId, context.account_id, provider, portalId, input.trigger, why ? 'not_run' : input.queueForTurn ? 'queued' : 'running', why, deps.clock()],
    );
  }
  const { chatWebhookDisabled: _disabled, ...plain } = settings ?? { chatWebhookDisabled: null };
  return {
    runId: input.runId,
    notRunReason: why,
    settings: settings ? { ...(plain as CrmSettings), chatWebhookUrl: settings.chatWebhookDisabled ? null : settings.chatWebhookUrl } : null,
    productName: context?.name ?? '',
    provider,
    portalId,
    ownerEmail: context?.owner_email ?? '',
  };
}

/**
 * The product's fields in the CRM, created on first use (existing ones are
 * left as they are; docs/crm.md#what-a-sync-does). Where the CRM's API cannot
 * create them for this user (Salesforce without the rights), the run ends
 * with the admin's steps, which the CRM page shows too.
 */
export async function ensureCrmProperties(deps: CrmSyncDeps, plan: CrmRunPlan): Promise<void> {
  const settings = plan.settings!;
  const adapter = await crmAdapterFor(deps, settings);
  const fields = await adapter.ensureOwnFields({ id: settings.productId, name: plan.productName });
  if (!fields.ready) {
    throw new CrmRejected(403, `${CRM_PROVIDER_LABELS[adapter.provider]} needs our fields set up by an admin first (the CRM page lists the steps): ${fields.steps.join(' ')}`.slice(0, 2000));
  }
}

export async function researchData(em: EntityManager, researchId: string): Promise<ResearchData | null> {
  const [row]: Array<{ status: string; completed_reply: string | null }> = await em.execute('select status, completed_reply from research_job where id = ?', [researchId]);
  if (row?.status !== 'completed' || !row.completed_reply) return null;
  return (JSON.parse(row.completed_reply) as { data: ResearchData }).data;
}

export interface ContactWriteResult {
  noteId: string;
  chat: ChatPostResult['outcome'] | 'none' | 'already';
}

/**
 * After a contact's research completed: its properties (status `completed`
 * last, with enriched_at), one note, one chat follow-up. Each step is skipped
 * when the ledger says it happened.
 */
export async function writeResearchedContact(
  deps: CrmSyncDeps,
  plan: CrmRunPlan,
  contact: CandidateVerdict,
  researchId: string,
  options: { isRetry?: boolean } = {},
): Promise<ContactWriteResult> {
  const settings = plan.settings!;
  const em = deps.em();
  const data = await researchData(em, researchId);
  if (!data) throw new Error(`research ${researchId} is not completed`);
  const crm = crmClientFor(deps, settings.accountId, plan.portalId!);
  const [state]: Array<{ note_id: string | null; chat_posted_at: Date | null; status: string }> = await em.execute(
    'select note_id, chat_posted_at, status from crm_contact_state where product_id = ? and portal_id = ? and contact_id = ?',
    [settings.productId, plan.portalId, contact.contactId],
  );
  await crm.updateContact(contact.contactId, crmContentProperties(settings.productId, data));
  let noteId = state?.note_id ?? null;
  if (!noteId) {
    const html = crmNoteHtml(plan.productName, data);
    // A try cut off between HubSpot creating the note and its id being saved (a worker killed,
    // PostgreSQL gone) left the note there: a retry finds it (same research, same body) instead
    // of writing a second one. First tries skip the lookup: it costs two calls.
    noteId = (options.isRetry ? await crm.findNote(contact.contactId, html) : null) ?? (await crm.createNote(contact.contactId, html, deps.clock()));
    await em.execute('update crm_contact_state set note_id = ?, research_id = ?, updated_at = ? where product_id = ? and portal_id = ? and contact_id = ?', [
      noteId, researchId, deps.clock(), settings.productId, plan.portalId, contact.contactId,
    ]);
  }
  await crm.updateContact(contact.contactId, {
    [crmPropertyName(settings.productId, 'enriched_at')]: deps.clock().toISOString(),
    [crmPropertyName(settings.productId, 'status')]: 'completed',
  });
  await em.execute(
    `update crm_contact_state set status = 'completed', research_id = ?, updated_at = ? where product_id = ? and portal_id = ? and contact_id = ?`,
    [researchId, deps.clock(), settings.productId, plan.portalId, contact.contactId],
  );
  await em.execute(`update crm_sync_contact set outcome = 'researched', research_id = ? where run_id = ? and contact_id = ?`, [researchId, plan.runId, contact.contactId]);

  const chat = state?.chat_posted_at ? 'already' : await postContactChat(deps, plan, contact, data);
  return { noteId, chat };
}

/**
 * The contact's chat follow-up, once: none without a webhook (or with one
 * disabled since the run began), `already` when the ledger says it went out.
 */
export async function postContactChat(deps: CrmSyncDeps, plan: CrmRunPlan, contact: CandidateVerdict, data: ResearchData): Promise<ContactWriteResult['chat']> {
  const settings = plan.settings!;
  const em = deps.em();
  if (!settings.chatWebhookUrl) return 'none';
  const [state]: Array<{ chat_posted_at: Date | null; disabled_at: Date | null }> = await em.execute(
    `select s.chat_posted_at, i.chat_webhook_disabled_at as disabled_at from crm_contact_state s join crm_integration i on i.product_id = s.product_id
     where s.product_id = ? and s.portal_id = ? and s.contact_id = ?`,
    [settings.productId, plan.portalId, contact.contactId],
  );
  if (state?.chat_posted_at) return 'already';
  if (state?.disabled_at) return 'none';
  const recordUrl = await recordUrlOf(deps, settings.accountId);
  const message = contactChatMessage({
    productName: plan.productName,
    contactName: contact.name ?? contact.email ?? `Contact ${contact.contactId}`,
    email: contact.email ?? '',
    contactUrl: recordUrl?.(contact.contactId) ?? `${deps.publicUrl}/app/crm`,
    data,
  });
  const chat = await postChat(deps, plan, message);
  if (chat === 'posted') {
    await em.execute('update crm_contact_state set chat_posted_at = ? where product_id = ? and portal_id = ? and contact_id = ?', [deps.clock(), settings.productId, plan.portalId, contact.contactId]);
  }
  return chat;
}

/** A contact whose research failed or was not started: `failed` in the ledger and in HubSpot (tried again next run). */
export async function markContactFailed(deps: CrmSyncDeps, plan: CrmRunPlan, contact: CandidateVerdict, input: { researchId: string | null; error: string; outcome: 'failed' | 'not_researched' }): Promise<void> {
  const settings = plan.settings!;
  const em = deps.em();
  await em.execute(
    `update crm_contact_state set status = 'failed', research_id = coalesce(?, research_id), updated_at = ? where product_id = ? and portal_id = ? and contact_id = ? and run_id = ? and status = 'in_progress'`,
    [input.researchId, deps.clock(), settings.productId, plan.portalId, contact.contactId, plan.runId],
  );
  await em.execute(`update crm_sync_contact set outcome = ?, research_id = ?, error = ? where run_id = ? and contact_id = ?`, [input.outcome, input.researchId, input.error.slice(0, 500), plan.runId, contact.contactId]);
  // Only a contact we researched and failed is marked in HubSpot; one never started keeps what it had.
  if (input.outcome === 'failed') {
    await crmClientFor(deps, settings.accountId, plan.portalId!).updateContact(contact.contactId, { [crmPropertyName(settings.productId, 'status')]: 'failed' });
  }
}

/** One post; a webhook that is gone (403/404/410) is disabled and its owner told, once. */
async function postChat(deps: CrmSyncDeps, plan: CrmRunPlan, message: ChatMessage): Promise<ChatPostResult['outcome']> {
  const settings = plan.settings!;
  const url = settings.chatWebhookUrl!;
  // In the webhook's turn, shared by every process (services/crm/chat-pacing.ts): in order, about one a second.
  const result = await postPacedChatMessage(deps.em, url, message, { policy: deps.config.outbound });
  if (result.outcome === 'gone') {
    const em = deps.em();
    await em.transactional(async (tx) => {
      const disabled = await disableChatWebhook(tx, settings.productId, url, `${result.status} ${result.answer}`, deps.clock());
      if (disabled) {
        await enqueueMail(tx, {
          accountId: settings.accountId,
          dedupeKey: `crm-webhook-disabled:${settings.productId}:${deps.clock().toISOString()}`,
          message: crmWebhookDisabledEmail({ to: plan.ownerEmail, productName: plan.productName, answer: `${result.status} ${result.answer}`, publicUrl: deps.publicUrl }),
        });
      }
    });
    // Later messages of this run go nowhere.
    settings.chatWebhookUrl = null;
  }
  return result.outcome;
}

/**
 * Ends the run: counts recorded, contacts still `in_progress` for it marked
 * failed, the digest queued in the same transaction (once per run: its
 * dedupe key is the run id; none when nobody was researched) and handed to
 * `onDigestQueued` once committed (the activity wakes the mail outbox, so the
 * digest goes out as the run ends), then the chat summary posted once (the
 * run row says whether it was).
 */
export async function finishCrmRun(
  deps: CrmSyncDeps,
  plan: CrmRunPlan,
  input: { status: 'completed' | 'credits_exhausted' | 'failed'; reason: string | null; creditsUsed: number },
  options: { onDigestQueued?(): Promise<void> } = {},
): Promise<CrmRunCounts> {
  const settings = plan.settings!;
  const em = deps.em();
  const now = deps.clock();
  const rows: Array<{ contact_id: string; email: string | null; name: string | null; outcome: string; skip_reason: SkipReason | null }> = await em.execute(
    'select contact_id, email, name, outcome, skip_reason from crm_sync_contact where run_id = ? order by position',
    [plan.runId],
  );
  const counts: CrmRunCounts = { found: rows.length, skipped: emptySkipCounts(), researched: 0, failed: 0, creditsUsed: input.creditsUsed };
  for (const row of rows) {
    if (row.skip_reason) counts.skipped[row.skip_reason]++;
    else if (row.outcome === 'researched') counts.researched++;
    else if (row.outcome === 'failed') counts.failed++;
  }
  const [run]: Array<{ started_at: Date; finished_at: Date | null }> = await em.execute('select started_at, finished_at from crm_sync_run where id = ?', [plan.runId]);
  const crm = CRM_PROVIDER_LABELS[plan.provider ?? 'hubspot'];
  const recordUrl = (await recordUrlOf(deps, settings.accountId)) ?? (() => `${deps.publicUrl}/app/crm`);
  let isDigestQueued = false;
  const first = await em.transactional(async (tx) => {
    const updated: unknown[] = await tx.execute(
      `update crm_sync_run set status = ?, reason = ?, found = ?, skipped = ?, researched = ?, failed = ?, credits_used = ?, finished_at = ? where id = ? and finished_at is null returning id`,
      [input.status, input.reason, counts.found, JSON.stringify(counts.skipped), counts.researched, counts.failed, counts.creditsUsed, now, plan.runId],
    );
    // Nothing of this run stays in_progress once it ends (the next run tries them again).
    await tx.execute(`update crm_contact_state set status = 'failed', updated_at = ? where run_id = ? and status = 'in_progress'`, [now, plan.runId]);
    await tx.execute(`update crm_sync_contact set outcome = 'not_researched' where run_id = ? and outcome = 'taken'`, [plan.runId]);
    if (updated.length > 0 && settings.digestEnabled && counts.researched > 0) {
      isDigestQueued = await enqueueMail(tx, {
        accountId: settings.accountId,
        dedupeKey: `crm-digest:${plan.runId}`,
        message: crmDigestEmail({
          to: settings.digestEmail ?? plan.ownerEmail,
          crm,
          productName: plan.productName,
          researched: counts.researched,
          failed: counts.failed,
          skipped: skippedSummary(counts.skipped),
          creditsUsed: counts.creditsUsed,
          stoppedForCredits: input.status === 'credits_exhausted',
          contacts: rows
            .filter((row) => row.outcome === 'researched' || row.outcome === 'failed')
            .map((row) => ({
              name: row.name ?? row.email ?? row.contact_id, email: row.email ?? '', company: null,
              recordUrl: recordUrl(row.contact_id), outcome: row.outcome as 'researched' | 'failed',
            })),
          publicUrl: deps.publicUrl,
        }),
      });
    }
    return updated.length > 0;
  });
  if (first) crmMetrics.runsFinished.inc({ status: input.status });
  if (isDigestQueued) await options.onDigestQueued?.();
  if (first && settings.chatWebhookUrl) {
    await postChat(deps, plan, runSummaryChatMessage({
      crm,
      productName: plan.productName, counts, stoppedForCredits: input.status === 'credits_exhausted', startedAt: new Date(run?.started_at ?? now), minScore: settings.minScore,
    }));
  }
  return counts;
}

/**
 * A run waiting out its CRM's allowance (a step retried when the hold-off
 * ends): why and until when, on the run's row, so that the CRM page says
 * so rather than a silent "Running".
 */
export async function recordRunWaiting(deps: CrmSyncDeps, runId: string, holdOff: CrmHoldOff): Promise<void> {
  await deps.em().execute(`update crm_sync_run set waiting_until = ?, waiting_reason = ? where id = ? and status = 'running'`, [holdOff.until, holdOff.reason.slice(0, 500), runId]);
}

/** A run that could not run at all: recorded with its reason. */
export async function finishNotRun(deps: CrmSyncDeps, runId: string, reason: string): Promise<void> {
  await deps.em().execute(`update crm_sync_run set status = 'not_run', reason = ?, finished_at = coalesce(finished_at, ?) where id = ?`, [reason, deps.clock(), runId]);
}
