import { ApplicationFailure, CancellationScope, condition, isCancellation, log, patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { RESEARCH_DEADLINE_MS } from '../domain/research/contract.ts';
import { CRM_CONTACTS_IN_FLIGHT, type FanoutItemOutcome } from '../domain/research/fanout.ts';
import type { CrmActivities } from '../activities/crm-sync.ts';
import { emptySkipCounts, type CandidateVerdict } from '../domain/crm/crm.ts';
import {
  CRM_FAILURE_TYPES, CRM_RUN_CONTACTS_IN_FLIGHT, type ContactWriteItem, type ContactWriteOutcome, type CrmRunPlan, type CrmSyncInput, type CrmSyncResult,
} from '../domain/crm/sync-contract.ts';
import { crmDatabase, crmHubSpot, crmRunTurn } from './activity-profiles.ts';
import { researchFanout } from './research-fanout.ts';
import { loggedError } from '../domain/logged-error.ts';

const database = proxyActivities<CrmActivities>(crmDatabase);
const hubspot = proxyActivities<CrmActivities>(crmHubSpot);
const turns = proxyActivities<CrmActivities>(crmRunTurn);

/** Contacts written back to HubSpot at once: few; the portal's throttle sets the pace anyway. */
const WRITES_IN_FLIGHT = 4;

/**
 * Runs from this patch on write each contact back as soon as its research
 * ends (docs/architecture.md#crm-sync: the contact's child writes its properties and
 * note), so the write-back overlaps the research instead of following it,
 * stop taking contacts once a write-back fails for good, and research
 * CRM_RUN_CONTACTS_IN_FLIGHT contacts at once. Runs started before it replay
 * the old shape: research all, then write all, 5 at once.
 */
const WRITE_AS_RESEARCHED_PATCH = 'crm-write-as-researched';

/**
 * Runs from this patch on hand ended contacts to a buffer that is written in
 * batches (docs/crm.md#batch-writes): a notes batch/create and a contacts
 * batch/update per flush, instead of three calls per contact. Runs started
 * before it replay the write-as-researched shape.
 */
const BATCH_WRITES_PATCH = 'crm-batch-writes';
/**
 * Runs from this patch on are recorded `queued` and wait for their account's
 * turn before any CRM call (CRM_RUNS_PER_ACCOUNT; docs/crm.md#runs-waiting-their-turn).
 * Runs started before it are recorded running at once, as they were.
 */
const RUN_CAP_PATCH = 'crm-runs-per-account';
/** A flush takes at most HubSpot's batch size. */
const FLUSH_CONTACTS = 100;
/**
 * A contact ended waits at most this long for others to share its flush: two
 * HubSpot calls per flush, so a run of 50 spends a few flushes, not 150
 * calls; the last contacts are written as soon as the research ends.
 */
const FLUSH_INTERVAL = '5 seconds';

/** What the research of one taken contact came to. */
export type ContactResearch = ContactWriteItem;

/**
 * Researches the taken contacts: one child research workflow and one credit
 * per contact (source `crm`), ids that make a contact's research happen once
 * however often the run is retried (docs/architecture.md#many-jobs-at-once-crm-runs-and-lists). This is
 * the shared fan-out's job (workflows/research-fanout.ts); the run only needs
 * the outcome per contact and whether credits ran out.
 */
export type ResearchContacts = (
  plan: CrmRunPlan,
  taken: CandidateVerdict[],
  options?: { inFlight: number; onContactEnd(research: ContactResearch): void; shouldStop(): boolean },
) => Promise<{ outcomes: ContactResearch[]; creditsUsed: number; outOfCredits: boolean }>;

/**
 * One CRM sync run (docs/crm.md#how-a-run-works): the settings read once, the
 * product's properties made sure of, candidates searched and claimed, the
 * taken contacts researched through `researchContacts`, then written back
 * (properties with status `completed` last, one note, one chat follow-up).
 * The run ends recorded, with one chat summary and one e-mail digest, and
 * nothing of it left `in_progress`. A dead HubSpot grant ends the run: the
 * integrations are paused and the owner told by then.
 *
 * `crmSyncWorkflow` is this with the shared fan-out as `researchContacts`.
 */
export async function crmSyncWorkflow(input: CrmSyncInput): Promise<CrmSyncResult> {
  return runCrmSync(input, researchContactsThroughFanout);
}

/**
 * The CRM worker's queue is the research queue with `-crm` appended
 * (services/crm/schedules.ts `crmTaskQueue`); the contacts' research runs on
 * the research queue beside every other job.
 */
const researchTaskQueueOf = (crmTaskQueue: string) => crmTaskQueue.replace(/-crm$/, '');

/**
 * The taken contacts through the shared fan-out (workflows/research-fanout.ts):
 * one research job and one credit per contact (source `crm`), named by
 * (run id, contact id), so a retried or replayed run researches each once.
 */
export const researchContactsThroughFanout: ResearchContacts = async (plan, taken, control) => {
  const settings = plan.settings!;
  const owner = { source: 'crm' as const, ref: plan.runId, accountId: settings.accountId, productId: settings.productId, apiKeyId: null };
  const items = taken.map((contact) => ({ key: contact.contactId, request: { email: contact.email!, ...(contact.name ? { prospectName: contact.name } : {}) } }));
  const options = { inFlight: control?.inFlight ?? CRM_CONTACTS_IN_FLIGHT, researchTaskQueue: researchTaskQueueOf(workflowInfo().taskQueue), deadlineMs: RESEARCH_DEADLINE_MS };
  const byKey = new Map(taken.map((contact) => [contact.contactId, contact]));
  const asResearch = (item: FanoutItemOutcome, isOutOfCredits: boolean): ContactResearch => {
    const outcome = item.outcome === 'completed' ? 'researched' : item.outcome === 'failed' ? 'failed' : 'not_researched';
    const error = outcome === 'not_researched' ? (isOutOfCredits ? 'out of credits' : 'not researched') : item.error;
    return { contact: byKey.get(item.key)!, outcome, researchId: item.researchId, error };
  };
  const result = await researchFanout(owner, items, options, {
    shouldStop: () => control?.shouldStop() ?? false,
    ...(control ? { onItemEnd: (item: FanoutItemOutcome) => control.onContactEnd(asResearch(item, false)) } : {}),
  });
  const outcomes = result.outcomes.map((item) => asResearch(item, result.isOutOfCredits));
  return { outcomes, creditsUsed: result.creditsUsed, outOfCredits: result.isOutOfCredits };
};

export async function runCrmSync(input: CrmSyncInput, researchContacts: ResearchContacts): Promise<CrmSyncResult> {
  const runId = workflowInfo().workflowId;
  const isCapped = patched(RUN_CAP_PATCH);
  const plan = await database.crmStartRun({ ...input, runId, ...(isCapped ? { queueForTurn: true } : {}) });
  if (plan.notRunReason) {
    log.info('CRM run not started', { runId, reason: plan.notRunReason });
    return { runId, status: 'not_run', reason: plan.notRunReason, counts: { found: 0, skipped: emptySkipCounts(), researched: 0, failed: 0, creditsUsed: 0 } };
  }
  let status: 'completed' | 'credits_exhausted' | 'failed' = 'completed';
  let reason: string | null = null;
  let creditsUsed = 0;
  try {
    // Cancelled while it waits: recorded failed (cancelled) below, like any run.
    if (isCapped) await turns.crmTakeRunTurn(plan);
    await hubspot.crmEnsureProperties(plan);
    const candidates = await hubspot.crmFindCandidates(plan);
    if (patched(WRITE_AS_RESEARCHED_PATCH)) {
      const writer = patched(BATCH_WRITES_PATCH) ? writeBackInBatches(plan) : writeBackAsResearched(plan);
      const research = await researchContacts(plan, candidates.taken, { inFlight: CRM_RUN_CONTACTS_IN_FLIGHT, onContactEnd: writer.add, shouldStop: writer.hasFailed });
      creditsUsed = research.creditsUsed;
      if (research.outOfCredits) {
        status = 'credits_exhausted';
        reason = 'credits_exhausted';
      }
      // Contacts never started (credits ran out) are written off too; the ended ones were handed over already.
      for (const item of research.outcomes) if (item.outcome === 'not_researched') writer.add(item);
      await writer.done();
    } else {
      const research = await researchContacts(plan, candidates.taken);
      creditsUsed = research.creditsUsed;
      if (research.outOfCredits) {
        status = 'credits_exhausted';
        reason = 'credits_exhausted';
      }
      await writeBack(plan, research.outcomes);
    }
  } catch (error) {
    status = 'failed';
    reason = failureReason(error);
    log.warn('CRM run failed', { runId, reason, error: loggedError(error) });
  }
  // Whatever happened (a cancellation too), the run ends recorded and its summary goes out.
  const counts = await CancellationScope.nonCancellable(() => database.crmFinishRun(plan, { status, reason, creditsUsed }));
  return { runId, status, reason, counts };
}

function failureReason(error: unknown): string {
  if (isCancellation(error)) return 'cancelled';
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === CRM_FAILURE_TYPES.authRevoked) return 'token_revoked';
    if (cause.type === CRM_FAILURE_TYPES.configRejected) return 'crm_app_refused';
    if (cause.type === CRM_FAILURE_TYPES.rejected) return 'crm_refused';
    if (cause.type === CRM_FAILURE_TYPES.unavailable) return 'crm_unavailable';
  }
  return 'internal_error';
}

const isFailureOfType = (error: unknown, type: string) => {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof ApplicationFailure && cause.type === type;
};

/**
 * One contact's write-back. HubSpot refusing the contact (a validation rule
 * of the portal, say) fails that contact, not the run; a dead grant or
 * HubSpot staying down throws, and ends the run.
 */
async function writeContact(plan: CrmRunPlan, item: ContactResearch): Promise<void> {
  if (item.outcome === 'researched') {
    try {
      await hubspot.crmWriteContact(plan, item.contact, item.researchId!);
      return;
    } catch (error) {
      if (!isFailureOfType(error, CRM_FAILURE_TYPES.rejected)) throw error;
      item = { ...item, outcome: 'failed', error: `HubSpot refused the write: ${String((error as { cause?: Error }).cause?.message ?? error)}` };
    }
  }
  await hubspot.crmMarkContactFailed(plan, item.contact, { researchId: item.researchId, error: item.error ?? item.outcome, outcome: item.outcome === 'researched' ? 'failed' : item.outcome });
}

/** Each contact's write-back after all the research (runs before WRITE_AS_RESEARCHED_PATCH), a few at a time. */
async function writeBack(plan: CrmRunPlan, outcomes: ContactResearch[]): Promise<void> {
  const queue = [...outcomes];
  const next = async (): Promise<void> => {
    for (let item = queue.shift(); item; item = queue.shift()) await writeContact(plan, item);
  };
  await Promise.all(Array.from({ length: WRITES_IN_FLIGHT }, next));
}

/**
 * Write-backs started as contacts are handed over (as each one's research
 * ends), a few at a time. The first failure that ends the run is kept, not
 * left as an unhandled rejection: no further write starts, `hasFailed` tells
 * the fan-out to take no further contact, and `done` throws it once the
 * writes under way have ended.
 */
function writeBackAsResearched(plan: CrmRunPlan) {
  const queue: ContactResearch[] = [];
  const lanes: Array<Promise<void>> = [];
  let active = 0;
  let failure: { error: unknown } | null = null;
  const lane = async (): Promise<void> => {
    active++;
    try {
      for (let item = queue.shift(); item && !failure; item = queue.shift()) await writeContact(plan, item);
    } catch (error) {
      failure ??= { error };
    } finally {
      active--;
    }
  };
  return {
    add(item: ContactResearch): void {
      queue.push(item);
      if (active < WRITES_IN_FLIGHT && !failure) lanes.push(lane());
    },
    hasFailed: (): boolean => failure !== null,
    async done(): Promise<void> {
      for (let running = lanes.shift(); running; running = lanes.shift()) await running;
      if (failure) throw failure.error;
    },
  };
}

/**
 * Ended contacts buffered and written in batches, one flush at a time
 * (`crmWriteBatch`: per contact its own outcome, a refused one failed alone):
 * a flush goes when FLUSH_CONTACTS have ended, FLUSH_INTERVAL after the
 * first of them, or at once when the research is over. Researched contacts'
 * chat follow-ups go out in order behind the flushes, never holding them up.
 * A flush that fails for good (a dead grant, a 403, HubSpot down) ends the
 * run as a write-back always did: `hasFailed` stops the fan-out taking
 * contacts, and `done` throws it once the chats under way have ended.
 */
function writeBackInBatches(plan: CrmRunPlan) {
  const buffer: ContactResearch[] = [];
  let isClosed = false;
  let failure: { error: unknown } | null = null;
  let chats: Promise<void> = Promise.resolve();
  const flushes = (async () => {
    for (;;) {
      await condition(() => buffer.length > 0 || isClosed);
      if (buffer.length === 0) return;
      if (!isClosed) await condition(() => buffer.length >= FLUSH_CONTACTS || isClosed, FLUSH_INTERVAL);
      const batch = buffer.splice(0, FLUSH_CONTACTS);
      let outcomes: ContactWriteOutcome[];
      try {
        outcomes = await hubspot.crmWriteBatch(plan, batch);
      } catch (error) {
        failure = { error };
        return;
      }
      if (!plan.settings!.chatWebhookUrl) continue;
      const written = new Set(outcomes.filter((outcome) => outcome.outcome === 'researched').map((outcome) => outcome.contactId));
      const ready = batch.filter((item) => written.has(item.contact.contactId));
      chats = chats.then(() => postChats(plan, ready));
    }
  })();
  return {
    add(item: ContactResearch): void {
      if (!failure) buffer.push(item);
    },
    hasFailed: (): boolean => failure !== null,
    async done(): Promise<void> {
      isClosed = true;
      await flushes;
      await chats;
      if (failure) throw failure.error;
    },
  };
}

/** One chat follow-up per contact, in order; a message that cannot go out is logged, never the run's end. */
async function postChats(plan: CrmRunPlan, items: ContactResearch[]): Promise<void> {
  for (const item of items) {
    try {
      await database.crmPostContactChat(plan, item.contact, item.researchId!);
    } catch (error) {
      log.warn('CRM chat follow-up not posted', { runId: plan.runId, contactId: item.contact.contactId, error: loggedError(error) });
    }
  }
}
