import { isCancellation, log, patched } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { EnrichmentPart, EnrichmentRunner } from '../domain/enrichment/chains.ts';
import { loggedError } from '../domain/logged-error.ts';

export type { CompanyState, PersonPostsState, PersonState } from '../domain/enrichment/chains.ts';

/**
 * A company that no company endpoint knows is taken from the person's record of
 * their employer. Runs recorded before it replay without it (docs/architecture.md#temporal-traps).
 */
const COMPANY_FROM_EMPLOYER_PATCH = 'company-from-employer-when-company-endpoints-miss';

/**
 * The enrichment chains over one activity per part, as runs recorded before
 * every part moved into one activity did them (they replay on this path; new runs use `lookupParts`).
 * Optional parts degrade to null instead of failing the job (docs/architecture.md#the-research-path); only
 * the deadline's cancellation passes through.
 */
export function perPartRunner(
  activities: Pick<
    Activities,
    'fetchPerson' | 'fetchPersonPosts' | 'fetchCompany' | 'fetchCompanyPosts' | 'fetchCompanyNews' | 'fetchDecisionMakers' | 'detectTechnologies'
  >,
  jobs: Pick<Activities, 'planCompany'>,
  markDone: (part: EnrichmentPart) => void,
): EnrichmentRunner {
  return {
    lookups: activities,
    planCompany: (researchId, query) => jobs.planCompany(researchId, query),
    async optional(part, run) {
      try {
        return await run();
      } catch (error) {
        if (isCancellation(error)) throw error;
        log.warn('enrichment part unavailable, continuing without it', { part, error: loggedError(error) });
        return null;
      } finally {
        markDone(part);
      }
    },
    takesCompanyFromEmployer: () => patched(COMPANY_FROM_EMPLOYER_PATCH),
  };
}
