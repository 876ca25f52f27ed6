import type { CompanyProfile, PersonProfile } from '../../domain/enrichment/enrichment.ts';
import { createApolloClient, APOLLO_APIS } from './apollo-client.ts';
import type { ProviderConfig } from './config.ts';
import type { EnrichmentSources } from './enrichment-sources.ts';
import { DEFAULT_RETRY, type HttpDeps, type ProviderLogger, type RetryPolicy } from './http.ts';
import { createNewsClient, NEWS_APIS } from './news-client.ts';
import { createPdlClient, PDL_APIS } from './pdl-client.ts';
import { createSocialPostsClient, SOCIAL_APIS } from './social-posts-client.ts';
import { detectTechnologies } from './technologies.ts';
import { PageFetchFailed, PageFetchRefused } from '../web/page-fetch-errors.ts';
import { fillNullFields, hasNoNullFields, runWaterfall, type WaterfallStep } from './waterfall.ts';

export interface SourcesDeps {
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  retry?: RetryPolicy;
}

export const TECHNOLOGY_API = 'website.home_page';
const MAX_NEWS = 3;
const MAX_POSTS = 3;
/** docs/api.md#the-company: news at most 12 months old; a plan with a shorter history narrows it. */
const NEWS_MAX_AGE_MONTHS = 12;
const DAY_MS = 86_400_000;

const sameText = (a: string | null, b: string | null) => a !== null && b !== null && a.trim().toLowerCase() === b.trim().toLowerCase();

// A second provider may have matched someone else (same name, other e-mail):
// its fields fill gaps only when it evidently describes the same person.
function fillPersonGaps(winner: PersonProfile, other: PersonProfile): PersonProfile {
  const samePerson = sameText(winner.socialUrl, other.socialUrl) || sameText(winner.fullName, other.fullName);
  return samePerson ? fillNullFields(winner, other) : winner;
}

function fillCompanyGaps(winner: CompanyProfile, other: CompanyProfile): CompanyProfile {
  const sameCompany = sameText(winner.domain, other.domain) || sameText(winner.name, other.name);
  return sameCompany ? fillNullFields(winner, other) : winner;
}

/** "Trusted by more than 1,200 clients" → "1200": no provider has a field for it. */
export function clientsCountFrom(description: string | null): string | null {
  const match = description?.match(/(\d[\d,.]*)\+?\s+(?:clients|customers)\b/i);
  return match ? match[1].replace(/[,.]/g, '') : null;
}

function monthsBefore(now: Date, months: number): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - months);
  return cutoff;
}

/** The oldest `from` to ask for: 12 months back, or less when the news plan's history is shorter. */
export function newsWindowStart(now: Date, historyDays: number): Date {
  const ceiling = monthsBefore(now, NEWS_MAX_AGE_MONTHS);
  const planLimit = new Date(now.getTime() - historyDays * DAY_MS);
  return planLimit > ceiling ? planLimit : ceiling;
}

export function createEnrichmentSources(config: ProviderConfig, logger: ProviderLogger, deps: SourcesDeps = {}): EnrichmentSources {
  const http: HttpDeps = { fetch: deps.fetch ?? globalThis.fetch, logger, timeoutMs: config.timeoutMs, retry: deps.retry ?? DEFAULT_RETRY, sleep: deps.sleep };
  const pdl = config.pdl && { client: createPdlClient(config.pdl, http), source: config.pdl.source };
  const apollo = config.apollo && { client: createApolloClient(config.apollo, http), source: config.apollo.source };
  const social = config.social && { client: createSocialPostsClient(config.social, http), source: config.social.source };
  const news = config.news && { client: createNewsClient(config.news, http), source: config.news.source };

  const steps = <T>(...candidates: (WaterfallStep<T> | null | undefined | false | '')[]) => candidates.filter((s): s is WaterfallStep<T> => Boolean(s));

  return {
    findPerson(query) {
      return runWaterfall(steps<PersonProfile>(
        pdl && { api: PDL_APIS.person, source: pdl.source, run: () => pdl.client.findPerson(query) },
        apollo && { api: APOLLO_APIS.peopleMatch, source: apollo.source, run: () => apollo.client.findPerson(query) },
      ), { part: 'person', logger, fillGaps: fillPersonGaps, isComplete: hasNoNullFields });
    },

    async findCompany(query) {
      const lookup = await runWaterfall(steps<CompanyProfile>(
        pdl && (query.domain || query.socialUrl || query.name) && { api: PDL_APIS.company, source: pdl.source, run: () => pdl.client.findCompany(query) },
        apollo && query.domain && { api: APOLLO_APIS.organizationEnrich, source: apollo.source, run: () => apollo.client.findCompany(query) },
      ), { part: 'company', logger, fillGaps: fillCompanyGaps, isComplete: hasNoNullFields });
      const value = lookup.value && { ...lookup.value, clientsCount: lookup.value.clientsCount ?? clientsCountFrom(lookup.value.description) };
      return { ...lookup, value };
    },

    async findPersonPosts(person) {
      const lookup = await runWaterfall(steps(
        social && { api: SOCIAL_APIS.personPosts, source: social.source, run: () => social.client.personPosts(person.socialUrl) },
      ), { part: 'person posts', logger });
      return { ...lookup, value: lookup.value && lookup.value.slice(0, MAX_POSTS) };
    },

    async findCompanyPosts(company) {
      const lookup = await runWaterfall(steps(
        social && company.socialUrl && { api: SOCIAL_APIS.companyPosts, source: social.source, run: () => social.client.companyPosts(company) },
      ), { part: 'company posts', logger });
      return { ...lookup, value: lookup.value && lookup.value.slice(0, MAX_POSTS) };
    },

    findCompanyNews(company, now) {
      const cutoff = newsWindowStart(now, config.newsHistoryDays);
      const [oldest, newest] = [cutoff.toISOString().slice(0, 10), now.toISOString().slice(0, 10)];
      return runWaterfall(steps(
        news && {
          api: NEWS_APIS.everything, source: news.source,
          async run() {
            const articles = await news.client.search(company.name, cutoff);
            // Re-checked here: the provider's date filter is not trusted to hold.
            const seen = new Set<string>();
            return articles
              .filter((a) => a.publishedOn >= oldest && a.publishedOn <= newest && !seen.has(a.url) && seen.add(a.url))
              .sort((a, b) => b.publishedOn.localeCompare(a.publishedOn))
              .slice(0, MAX_NEWS);
          },
        },
      ), { part: 'company news', logger });
    },

    findDecisionMakers(company) {
      return runWaterfall(steps(
        pdl && company.domain && { api: PDL_APIS.personSearch, source: pdl.source, run: () => pdl.client.findDecisionMakers(company) },
      ), { part: 'decision makers', logger });
    },

    async detectTechnologies(website) {
      // Read from the site stand-in when one is configured: the data is then the sandbox's.
      const source = config.websiteStandInUrl !== null ? 'sandbox' : 'website';
      try {
        const names = await detectTechnologies(website, {
          timeoutMs: config.timeoutMs, policy: config.outboundPolicy, websiteStandInUrl: config.websiteStandInUrl,
        });
        return { value: names, apisCalled: [TECHNOLOGY_API], source };
      } catch (error) {
        if (!(error instanceof PageFetchRefused || error instanceof PageFetchFailed)) throw error;
        // A site that cannot be read is a missing part, not a provider outage.
        logger.warn({ reason: error.reason, message: error.message }, 'technology detection skipped');
        return { value: null, apisCalled: [TECHNOLOGY_API], source: null };
      }
    },
  };
}
