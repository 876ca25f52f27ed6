import type { DecisionMakerProfile } from './enrichment.ts';

// Decision makers are cached per company and shared by colleagues, so the
// prospect is left out when a reply is built, not when the list is stored:
// the same list is right for a colleague who is not on it.

const normalisedUrl = (url: string | null | undefined) => url?.trim().toLowerCase().replace(/^https?:\/\/(www\.)?/, '').replace(/\/+$/, '') ?? null;
const normalisedName = (name: string | null | undefined) => name?.normalize('NFKC').trim().toLowerCase().replace(/\s+/g, ' ') ?? null;

/** The company's decision makers without the prospect (same profile URL, or same name when a URL is missing). */
export function withoutProspect<T extends Pick<DecisionMakerProfile, 'fullName' | 'socialUrl'>>(
  decisionMakers: T[],
  prospect: { fullName: string | null; socialUrl: string | null } | null,
): T[] {
  if (!prospect) return decisionMakers;
  const url = normalisedUrl(prospect.socialUrl);
  const name = normalisedName(prospect.fullName);
  return decisionMakers.filter((person) => {
    const personUrl = normalisedUrl(person.socialUrl);
    if (url && personUrl) return personUrl !== url;
    return !(name && normalisedName(person.fullName) === name);
  });
}
