import type { CompanyProfile, CompanyQuery, PersonProfile } from './enrichment.ts';

// Company enrichment endpoints miss many small companies that the person
// providers still name as someone's employer (PDL's `job_company_*`, Apollo's
// `organization`). Throwing that away left a known person with `company: null`
// and, with no company, no decision makers. Pure: the workflow imports it.

/**
 * A company profile from what the person's record says about their employer;
 * null when the record names no employer, or another one than the company
 * looked up (the person's current job may have moved on from the e-mail's domain).
 */
export function companyFromEmployer(person: PersonProfile | null, query: CompanyQuery): CompanyProfile | null {
  if (!person?.companyName) return null;
  const domain = person.companyDomain ?? query.domain ?? null;
  if (query.domain && person.companyDomain && query.domain.toLowerCase() !== person.companyDomain.toLowerCase()) return null;
  return {
    name: person.companyName,
    description: null,
    socialUrl: person.companySocialUrl ?? query.socialUrl ?? null,
    website: domain ? `https://${domain}` : null,
    domain,
    industry: null,
    hq: null,
    revenue: null,
    employees: null,
    clientsCount: null,
  };
}
