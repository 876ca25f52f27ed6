import {
  CancellationScope,
  defineQuery,
  isCancellation,
  log,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { PROGRESS_QUERY, type ResearchProgress, type ResearchWorkflowInput } from '../domain/research/contract.ts';
import { hasNothingToFetch, isFullCacheHit } from '../domain/enrichment/cache-flags.ts';
import type { ResearchPlan } from '../domain/research/pipeline.ts';
import { enrichParts, type EnrichedParts } from '../domain/enrichment/chains.ts';
import { dbLocal, dbWrite, lookupCall, modelCall, providerCall } from './activity-profiles.ts';
import { perPartRunner } from './enrichment-steps.ts';
import { buildOutcome, insightsInputFor } from './outcome.ts';
import { loggedError } from '../domain/logged-error.ts';

const jobs = proxyActivities<Activities>(dbWrite);
const enrichment = proxyActivities<Activities>(providerCall);
const lookups = proxyActivities<Activities>(lookupCall);
const model = proxyActivities<Activities>(modelCall);
const local = proxyLocalActivities<Activities>(dbLocal);

/**
 * Runs started before this change scheduled `startResearch` as a regular
 * activity; `patched()` keeps them replaying (docs/architecture.md#temporal-traps).
 */
const LOCAL_START_PATCH = 'start-research-local-activity';

/**
 * A job first picked up after its deadline (worker outage, backlog) used to run
 * with no deadline at all: `withTimeout(0)` arms no timer. Gated for replay.
 */
const LATE_PICKUP_PATCH = 'fail-jobs-picked-up-after-their-deadline';

/**
 * Every enrichment part in one activity (`lookupParts`), its HTTP
 * calls side by side, instead of one activity per part. Runs started before
 * keep their per-part activities on replay.
 */
const ONE_LOOKUP_ACTIVITY_PATCH = 'enrichment-parts-in-one-activity';

/**
 * `finishResearch` as a local activity, run by the worker inside the
 * workflow task that follows the AI step (one workflow task and one activity
 * task fewer per job). It is the only local activity then running (never
 * several side by side: sdk-typescript#1744). Gated for replay.
 */
const LOCAL_FINISH_PATCH = 'finish-research-local-activity';

export const progressQuery = defineQuery<ResearchProgress>(PROGRESS_QUERY);

/**
 * One research job (docs/architecture.md#the-research-path). The 3-minute deadline is
 * enforced here rather than by a server-side timeout, so that the job record
 * and the refund always agree with what the caller sees.
 */
export async function researchWorkflow(input: ResearchWorkflowInput): Promise<'completed' | 'failed'> {
  const progress: ResearchProgress = { stage: 'queued', partsDone: [], isCacheHit: false };
  setHandler(progressQuery, () => progress);
  const deadlineAtMs = input.submittedAtMs + input.deadlineMs;

  const remainingMs = deadlineAtMs - Date.now();
  if (remainingMs <= 0 && patched(LATE_PICKUP_PATCH)) {
    log.warn('research job picked up after its deadline', { researchId: input.researchId });
    await jobs.failResearch(input.researchId, 'timeout');
    return 'failed';
  }
  try {
    await CancellationScope.withTimeout(Math.max(0, remainingMs), () => runPipeline(input, progress));
    return 'completed';
  } catch (error) {
    const failure = isCancellation(error) && Date.now() >= deadlineAtMs ? 'timeout' : 'internal_error';
    log.warn('research job failed', { researchId: input.researchId, failure, error: loggedError(error) });
    // The refund must happen even though the scope above was cancelled.
    await CancellationScope.nonCancellable(() => jobs.failResearch(input.researchId, failure));
    return 'failed';
  }
}

async function runPipeline(input: ResearchWorkflowInput, progress: ResearchProgress): Promise<void> {
  progress.stage = 'loading_cache';
  const plan = await (patched(LOCAL_START_PATCH) ? local : jobs).startResearch(input.researchId);
  if (plan.hasEnded) return;
  progress.isCacheHit = isFullCacheHit(plan);

  progress.stage = 'fetching_data';
  const { person: personState, posts, company } = await lookUpParts(plan, progress);

  progress.stage = 'generating_insights';
  const insightsInput = insightsInputFor(plan, personState, posts, company);
  const insights = insightsInput ? await model.generateInsights(insightsInput) : null;

  progress.stage = 'storing_results';
  const outcome = buildOutcome(plan, personState, posts, company, insightsInput, insights);
  await (patched(LOCAL_FINISH_PATCH) ? local : jobs).finishResearch(input.researchId, outcome);
  progress.stage = 'done';
}

/**
 * Independent chains side by side: person → posts, and (person →) company →
 * its parts. With every part fresh the chains ask for nothing and run here.
 */
async function lookUpParts(plan: ResearchPlan, progress: ResearchProgress): Promise<EnrichedParts> {
  if (!hasNothingToFetch(plan) && patched(ONE_LOOKUP_ACTIVITY_PATCH)) {
    const found = await lookups.lookupParts(plan);
    progress.partsDone.push(...found.partsDone);
    return found;
  }
  return enrichParts(perPartRunner(enrichment, jobs, (part) => progress.partsDone.push(part)), plan);
}
