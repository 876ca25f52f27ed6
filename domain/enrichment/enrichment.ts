// Provider-neutral shapes of the raw enrichment data, before any AI step.
// Every provider client maps its own reply into these; nothing downstream
// knows which provider supplied a field (docs/api.md: not part of the contract).

export interface PersonQuery {
  /** Normalised (trimmed, lower-cased) work e-mail address. */
  email: string;
  prospectName?: string;
  companyName?: string;
  socialUrl?: string;
}

export interface PersonProfile {
  fullName: string;
  /** As the source gives it; may be in any language (the AI step translates). */
  title: string | null;
  companyName: string | null;
  companyDomain: string | null;
  companySocialUrl: string | null;
  email: string;
  socialUrl: string | null;
  photoUrl: string | null;
  /** `YYYY-MM-DD` */
  lastRoleStart: string | null;
  location: string | null;
}

export interface SocialPost {
  text: string;
  /** `YYYY-MM-DD HH:MM:SS` (UTC) */
  posted: string;
  postUrl: string;
  reshared: boolean;
}

export interface CompanyQuery {
  /** Registrable domain of the company, when known (from the e-mail or the person). */
  domain?: string;
  /** Company page URL on the social network; overrides detection when given. */
  socialUrl?: string;
  name?: string;
}

export interface CompanyProfile {
  name: string;
  /** As the source gives it; may be in any language (the AI step translates). */
  description: string | null;
  socialUrl: string | null;
  website: string | null;
  domain: string | null;
  industry: string | null;
  hq: string | null;
  revenue: string | null;
  employees: string | null;
  clientsCount: string | null;
}

export interface NewsArticle {
  title: string;
  text: string;
  url: string;
  /** `YYYY-MM-DD` */
  publishedOn: string;
}

export interface DecisionMakerProfile {
  fullName: string;
  positionTitle: string;
  socialUrl: string;
  pictureUrl: string | null;
  locationText: string | null;
  companyName: string;
}

/** The answer of one enrichment lookup: a value or null ("not found" is a result, not an error). */
export interface Lookup<T> {
  value: T | null;
  /** Names of the provider APIs that were called, in call order (`_meta.company.apis_called`). */
  apisCalled: string[];
  /** Name of the provider that supplied the value; `sandbox` names the local stand-in. */
  source: string | null;
}
