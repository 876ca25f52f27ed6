import { ApplicationFailure, CancelledFailure, Context, log } from '@temporalio/activity';
import type { EnrichmentSources } from '../integrations/providers/enrichment-sources.ts';
import { enrichParts, type EnrichedParts, type EnrichmentLookups, type EnrichmentPart, type EnrichmentRunner } from '../domain/enrichment/chains.ts';
import { FAILURE_TYPES } from '../domain/research/contract.ts';
import type { ResearchPlan } from '../domain/research/pipeline.ts';
import { inAccountTurn, type CallTurns } from './call-turns.ts';
import { withHeartbeat } from './heartbeat.ts';
import { planCompanyOfJob, type ResearchJobDeps } from './research-jobs.ts';

export interface EnrichmentDeps extends ResearchJobDeps {
  sources: EnrichmentSources;
  clock: () => Date;
  callTurns: CallTurns;
}

/**
 * Each part inside `lookupParts` keeps what its own activity had (the
 * `providerCall` profile): 45 s per attempt, a second attempt 1 s after a
 * failure, then the part is unavailable and degrades to null. The provider
 * clients retry 429/5xx themselves within an attempt.
 */
export const PART_POLICY = { attemptTimeoutMs: 45_000, attempts: 2, retryDelayMs: 1_000 } as const;

const HEARTBEAT_INTERVAL_MS = 1_000;

export interface LookedUpParts extends EnrichedParts {
  /** The parts that finished, in the order they did (the progress query's `partsDone`). */
  partsDone: EnrichmentPart[];
}

/** What an attempt of `lookupParts` has found so far, kept in its heartbeat details for the next attempt. */
interface LookupProgress {
  found: Partial<Record<EnrichmentPart, unknown>>;
}

export function createEnrichmentActivities(deps: EnrichmentDeps) {
  const { sources, clock, callTurns } = deps;
  const lookups: EnrichmentLookups = {
    fetchPerson: (query) => sources.findPerson(query),
    fetchPersonPosts: (person) => sources.findPersonPosts(person),
    fetchCompany: (query) => sources.findCompany(query),
    fetchCompanyPosts: (company) => sources.findCompanyPosts(company),
    fetchCompanyNews: (company) => sources.findCompanyNews(company, clock()),
    fetchDecisionMakers: (company) => sources.findDecisionMakers(company),
    detectTechnologies: (website) => sources.detectTechnologies(website),
  };
  return {
    // One activity per part: what runs recorded before every part moved into one `lookupParts` activity schedule (they
    // replay, and may still be in flight). "Not found" is a value
    // (`{ value: null }`); only "every provider unavailable" is an error, retried by Temporal.
    fetchPerson: (query: Parameters<EnrichmentSources['findPerson']>[0]) => classified(() => lookups.fetchPerson(query)),
    fetchPersonPosts: (person: Parameters<EnrichmentSources['findPersonPosts']>[0]) => classified(() => lookups.fetchPersonPosts(person)),
    fetchCompany: (query: Parameters<EnrichmentSources['findCompany']>[0]) => classified(() => lookups.fetchCompany(query)),
    fetchCompanyPosts: (company: Parameters<EnrichmentSources['findCompanyPosts']>[0]) => classified(() => lookups.fetchCompanyPosts(company)),
    fetchCompanyNews: (company: Parameters<EnrichmentSources['findCompanyNews']>[0]) => classified(() => lookups.fetchCompanyNews(company)),
    fetchDecisionMakers: (company: Parameters<EnrichmentSources['findDecisionMakers']>[0]) => classified(() => lookups.fetchDecisionMakers(company)),
    detectTechnologies: (website: string) => classified(() => lookups.detectTechnologies(website)),

    /**
     * Every enrichment part of a job in one activity: the same
     * chains as the per-part activities (domain/enrichment/chains.ts), their
     * HTTP calls side by side, so a job costs two activity tasks and three
     * workflow tasks instead of about ten of each. A part keeps its own
     * timeout and retries and fails alone (null). What a killed worker's
     * attempt had found travels in the heartbeat details, so the next attempt
     * asks the providers only for the rest.
     */
    async lookupParts(plan: ResearchPlan): Promise<LookedUpParts> {
      const context = Context.current();
      const previous = (context.info.heartbeatDetails as LookupProgress | undefined)?.found ?? {};
      const progress: LookupProgress = { found: { ...previous } };
      const partsDone: EnrichmentPart[] = [];
      const heartbeat = () => context.heartbeat(progress);
      const runner: EnrichmentRunner = {
        lookups,
        planCompany: (researchId, query) => planCompanyOfJob(deps, researchId, query),
        async optional<T>(part: EnrichmentPart, run: () => Promise<T>): Promise<T | null> {
          try {
            if (part in previous) return previous[part] as T;
            const value = await withPartPolicy(context, (call) => inAccountTurn(callTurns.provider, plan.account, context, call), run);
            progress.found[part] = value;
            heartbeat();
            return value;
          } catch (error) {
            if (error instanceof CancelledFailure) throw error;
            log.warn('enrichment part unavailable, continuing without it', { part, error });
            return null;
          } finally {
            partsDone.push(part);
          }
        },
        takesCompanyFromEmployer: () => true,
      };
      const timer = setInterval(heartbeat, HEARTBEAT_INTERVAL_MS);
      try {
        return { ...(await enrichParts(runner, plan)), partsDone };
      } finally {
        clearInterval(timer);
      }
    },
  };
}

/**
 * One part's attempts: each in its account's turn (activities/call-turns.ts),
 * then bounded by its own timeout, retried once after a pause; a cancelled
 * job starts none. The wait for the turn is not part of the attempt's time:
 * an account over its cap gets slower jobs, not missing parts.
 */
async function withPartPolicy<T>(context: Context, inTurn: <R>(call: () => Promise<R>) => Promise<R>, run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (context.cancellationSignal.aborted) throw new CancelledFailure('lookupParts cancelled');
    try {
      return await inTurn(() => withTimeout(run(), PART_POLICY.attemptTimeoutMs));
    } catch (error) {
      if (attempt >= PART_POLICY.attempts) throw error;
      await context.sleep(PART_POLICY.retryDelayMs);
    }
  }
}

async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`part attempt timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

async function classified<T>(lookup: () => Promise<T>): Promise<T> {
  try {
    return await withHeartbeat(lookup);
  } catch (error) {
    if (error instanceof Error && (error.name === FAILURE_TYPES.providerUnavailable || (error as { type?: string }).type === FAILURE_TYPES.providerUnavailable)) {
      throw ApplicationFailure.create({ type: FAILURE_TYPES.providerUnavailable, message: error.message, cause: error });
    }
    throw error;
  }
}
