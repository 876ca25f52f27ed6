import { ApplicationFailure } from '@temporalio/activity';
import type { EnrichmentSources } from '../integrations/providers/enrichment-sources.ts';
import { FAILURE_TYPES } from '../domain/research-contract.ts';
import { withHeartbeat } from './heartbeat.ts';

export interface EnrichmentDeps {
  sources: EnrichmentSources;
  clock: () => Date;
}

/**
 * One activity per enrichment part, so each has its own timeout and retries and
 * independent parts run in parallel. "Not found" is a value (`{ value: null }`);
 * only "every provider unavailable" is an error, retried by Temporal.
 */
export function createEnrichmentActivities({ sources, clock }: EnrichmentDeps) {
  return {
    fetchPerson: (query: Parameters<EnrichmentSources['findPerson']>[0]) => classified(() => sources.findPerson(query)),
    fetchPersonPosts: (person: Parameters<EnrichmentSources['findPersonPosts']>[0]) => classified(() => sources.findPersonPosts(person)),
    fetchCompany: (query: Parameters<EnrichmentSources['findCompany']>[0]) => classified(() => sources.findCompany(query)),
    fetchCompanyPosts: (company: Parameters<EnrichmentSources['findCompanyPosts']>[0]) => classified(() => sources.findCompanyPosts(company)),
    fetchCompanyNews: (company: Parameters<EnrichmentSources['findCompanyNews']>[0]) => classified(() => sources.findCompanyNews(company, clock())),
    fetchDecisionMakers: (company: Parameters<EnrichmentSources['findDecisionMakers']>[0]) =>
      classified(() => sources.findDecisionMakers(company)),
    detectTechnologies: (website: string) => classified(() => sources.detectTechnologies(website)),
  };
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
