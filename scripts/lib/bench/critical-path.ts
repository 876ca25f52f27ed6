import { createProviderConfig } from '../../../integrations/providers/config.ts';
import { createEnrichmentSources } from '../../../integrations/providers/waterfall-sources.ts';
import type { EndpointName, LatencyMap } from '../../../sandbox/provider-world/faults.ts';
import { createWorld } from '../../../sandbox/provider-world/world.ts';

/** Fixed (jitter 0) latency of every provider endpoint, so a job's critical path is exact. */
export type EndpointLatencies = Record<EndpointName, number>;

/** The defaults: 300–800 ms per provider endpoint, 1.5 s per model call. */
export const DEFAULT_PROVIDER_LATENCIES_MS: EndpointLatencies = {
  'pdl.person': 500,
  'apollo.people_match': 400,
  'pdl.company': 600,
  'apollo.organization_enrich': 500,
  'pdl.person_search': 700,
  'social.person_posts': 400,
  'social.profiles': 400,
  'social.company_posts': 300,
  'news.everything': 800,
  site: 300,
};
export const DEFAULT_MODEL_LATENCY_MS = 1_500;

export function asLatencyMap(latencies: EndpointLatencies): LatencyMap {
  return Object.fromEntries(Object.entries(latencies).map(([name, meanMs]) => [name, { meanMs, jitterMs: 0 }]));
}

/** The provider calls a job for this person makes, per chain, in order. */
export interface ProspectCalls {
  email: string;
  person: EndpointName[];
  personPosts: EndpointName[];
  company: EndpointName[];
  /** The company's parts, fetched side by side once the company is known. */
  companyParts: { posts: EndpointName[]; news: EndpointName[]; decisionMakers: EndpointName[]; site: EndpointName[] };
}

const ROUTES: Array<[RegExp, EndpointName]> = [
  [/\/pdl\/v5\/person\/search/, 'pdl.person_search'],
  [/\/pdl\/v5\/person\//, 'pdl.person'],
  [/\/pdl\/v5\/company\//, 'pdl.company'],
  [/\/apollo\/api\/v1\/people\/match/, 'apollo.people_match'],
  [/\/apollo\/api\/v1\/organizations\/enrich/, 'apollo.organization_enrich'],
  [/\/social\/v1\/linkedin\/profiles\/posts/, 'social.person_posts'],
  [/\/social\/v1\/linkedin\/profiles/, 'social.profiles'],
  [/\/social\/v1\/linkedin\/companies\/posts/, 'social.company_posts'],
  [/\/news\/v2\/everything/, 'news.everything'],
];

const quiet = { error() {}, warn() {}, debug() {} };

/**
 * Candidate prospects: people known to both person providers, with posts, one
 * per company (a company shared by two jobs would be a cache hit for the
 * second and shorten its path), at corporate domains. The world is the
 * sandbox's own: same generator, same seed.
 */
export function candidateEmails(count: number, seed?: number): string[] {
  const world = createWorld({ seed });
  const seen = new Set<string>();
  const emails: string[] = [];
  for (const person of world.samplePeople({ knownTo: 'both', withPosts: true, withPromptInjection: false }, 100_000)) {
    const domain = world.companies[person.company].domain;
    if (seen.has(domain)) continue;
    seen.add(domain);
    emails.push(person.email);
    if (emails.length >= count) break;
  }
  return emails;
}

/**
 * Runs the lookups a Scale job makes through the real provider clients (on the
 * sandbox, before any latency is set), recording which endpoints each chain
 * calls: the waterfalls call a second provider only when the first one's
 * answer has gaps, so the path depends on the person.
 */
export async function recordProspectCalls(providerUrl: string, email: string): Promise<ProspectCalls | null> {
  const config = createProviderConfig({ PROVIDER_SANDBOX_URL: providerUrl, ALLOW_PRIVATE_HOSTS: '127.0.0.1' });
  const recorded = async <T>(run: (sources: ReturnType<typeof createEnrichmentSources>) => Promise<T>) => {
    const calls: EndpointName[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const endpoint = ROUTES.find(([pattern]) => pattern.test(url))?.[1];
      if (endpoint) calls.push(endpoint);
      return fetch(input, init);
    };
    const value = await run(createEnrichmentSources(config, quiet, { fetch: recordingFetch }));
    return { value, calls };
  };
  const domain = email.split('@')[1];
  const [person, company] = await Promise.all([
    recorded((s) => s.findPerson({ email })),
    recorded((s) => s.findCompany({ domain })),
  ]);
  const personProfile = person.value.value;
  const companyProfile = company.value.value;
  if (!personProfile?.socialUrl || !companyProfile) return null;
  const socialUrl = personProfile.socialUrl;
  const personPosts = await recorded((s) => s.findPersonPosts({ socialUrl }));
  const posts = await recorded((s) => s.findCompanyPosts({ socialUrl: companyProfile.socialUrl, domain: companyProfile.domain }));
  const news = await recorded((s) => s.findCompanyNews({ name: companyProfile.name, domain: companyProfile.domain }, new Date()));
  const decisionMakers = await recorded((s) =>
    s.findDecisionMakers({ name: companyProfile.name, domain: companyProfile.domain, socialUrl: companyProfile.socialUrl }),
  );
  // The site is fetched by the technology detector with its own client: one page.
  const site: EndpointName[] = companyProfile.website ? ['site'] : [];
  // Every part runs, so the path covers every provider.
  if (!personPosts.value.value?.length || site.length === 0) return null;
  return {
    email,
    person: person.calls,
    personPosts: personPosts.calls,
    company: company.calls,
    companyParts: { posts: posts.calls, news: news.calls, decisionMakers: decisionMakers.calls, site },
  };
}

/**
 * The slowest chain of provider calls plus the AI step (two model calls side
 * by side): max(person + person posts, company + max(its parts)) + model.
 */
export function criticalPathMs(calls: ProspectCalls, latencies: EndpointLatencies, modelLatencyMs: number): number {
  const sum = (chain: EndpointName[]) => chain.reduce((total, endpoint) => total + latencies[endpoint], 0);
  const personChain = sum(calls.person) + sum(calls.personPosts);
  const { posts, news, decisionMakers, site } = calls.companyParts;
  const companyChain = sum(calls.company) + Math.max(sum(posts), sum(news), sum(decisionMakers), sum(site));
  return Math.max(personChain, companyChain) + modelLatencyMs;
}
