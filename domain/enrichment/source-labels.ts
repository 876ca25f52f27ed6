// The sources of a job's data as a salesperson reads them. A reply's `_meta` names them by the ids the code uses
// (`pdl.company`, `apollo.organization_enrich`, `social.company_posts`; a provider `pdl`, or `sandbox` for the local
// stand-ins); the dashboard shows these words instead.

/** Each source call (`_meta.company.apis_called`) by what it fetched. */
export const SOURCE_CALL_LABELS: Readonly<Record<string, string>> = {
  'pdl.person': 'People Data Labs person data',
  'pdl.company': 'People Data Labs company data',
  'pdl.person_search': 'People Data Labs people search',
  'apollo.people_match': 'Apollo person data',
  'apollo.organization_enrich': 'Apollo company data',
  'social.person_posts': "the person's LinkedIn posts",
  'social.company_posts': "the company's LinkedIn posts",
  'news.everything': 'news articles',
  'website.home_page': "the company's website",
};

/** Each provider (`_meta.prospect.source`, `_meta.ai.source`) by its name. */
export const PROVIDER_LABELS: Readonly<Record<string, string>> = {
  sandbox: 'the local stand-ins, test data',
  pdl: 'People Data Labs',
  apollo: 'Apollo',
  social: 'Social Fetch',
  news: 'NewsAPI',
  website: "the company's website",
  openai: 'OpenAI',
};

/** A source call in words; one this table does not know yet keeps its id rather than vanish. */
export const sourceCallLabel = (id: string): string => SOURCE_CALL_LABELS[id] ?? id;

/** A provider in words; an AI endpoint's host name (`api.example.com`) reads as it is. */
export const providerLabel = (id: string): string => PROVIDER_LABELS[id] ?? id;

/** `a`, `a and b`, `a, b and c`. */
export function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
