// CRM search as HubSpot documents it: POST /crm/v3/objects/contacts/search.
// Sources: developers.hubspot.com/docs/api-reference/2026-03/crm/search-the-crm
// (filter groups are ORed, filters inside a group ANDed; the operators; the
// default properties createdate, email, firstname, hs_object_id,
// lastmodifieddate, lastname; one sort; at most 10,000 results per query)
// and PublicApiSpecs/CRM/Contacts/Rollouts/424/v3/contacts.json
// (PublicObjectSearchRequest, Filter, CollectionResponseWithTotal…ForwardPaging).
import type { Contact, Portal, Property } from './portal.ts';

export const OPERATORS = [
  'EQ', 'NEQ', 'LT', 'LTE', 'GT', 'GTE', 'BETWEEN', 'IN', 'NOT_IN', 'HAS_PROPERTY', 'NOT_HAS_PROPERTY', 'CONTAINS_TOKEN', 'NOT_CONTAINS_TOKEN',
] as const;
type Operator = (typeof OPERATORS)[number];

export interface Filter {
  propertyName: string;
  operator: Operator;
  value?: string;
  values?: string[];
  highValue?: string;
}

export interface SearchRequest {
  filterGroups?: Array<{ filters?: Filter[] }>;
  properties?: string[];
  sorts?: Array<string | { propertyName: string; direction?: 'ASCENDING' | 'DESCENDING' }>;
  limit?: number;
  after?: string | number;
  query?: string;
}

/** The documented limits (the brief's 5 groups / 6 filters each / 18 in all; `limit` ≤ 200; 10,000 results per query). */
export const SEARCH_LIMITS = { groups: 5, filtersPerGroup: 6, filtersTotal: 18, limit: 200, maxResults: 10_000 } as const;

export const DEFAULT_SEARCH_PROPERTIES = ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'];

export class SearchValidationError extends Error {}

export interface SearchPage {
  total: number;
  results: Array<{ id: string; properties: Record<string, string | null>; createdAt: string; updatedAt: string; archived: false }>;
  paging?: { next: { after: string; link?: string } };
}

export function searchContacts(portal: Portal, request: SearchRequest): SearchPage {
  const groups = request.filterGroups ?? [];
  if (groups.length > SEARCH_LIMITS.groups) throw new SearchValidationError(`Too many filter groups (${groups.length}); the maximum is ${SEARCH_LIMITS.groups}.`);
  let total = 0;
  for (const group of groups) {
    const count = group.filters?.length ?? 0;
    if (count > SEARCH_LIMITS.filtersPerGroup) throw new SearchValidationError(`Too many filters in a group (${count}); the maximum is ${SEARCH_LIMITS.filtersPerGroup}.`);
    total += count;
  }
  if (total > SEARCH_LIMITS.filtersTotal) throw new SearchValidationError(`Too many filters (${total}); the maximum is ${SEARCH_LIMITS.filtersTotal} across all groups.`);
  for (const filter of groups.flatMap((group) => group.filters ?? [])) validateFilter(portal, filter);

  const limit = request.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMITS.limit) throw new SearchValidationError(`limit must be between 1 and ${SEARCH_LIMITS.limit}.`);
  const after = Number(request.after ?? 0);
  if (!Number.isInteger(after) || after < 0) throw new SearchValidationError('after must be a non-negative integer cursor.');
  if (after + limit > SEARCH_LIMITS.maxResults) throw new SearchValidationError(`Paging past ${SEARCH_LIMITS.maxResults} results is not supported; narrow the filters.`);

  const sort = firstSort(request.sorts);
  if (sort && !portal.properties.get(sort.propertyName)) throw new SearchValidationError(`Unknown sort property ${sort.propertyName}.`);

  const matching = [...portal.contacts.values()].filter(
    (contact) => groups.length === 0 || groups.some((group) => (group.filters ?? []).every((filter) => matches(portal, contact.indexed, filter))),
  );
  if (sort) matching.sort(compareBy(portal.properties.get(sort.propertyName)!, sort.descending));
  else matching.sort((a, b) => Number(a.id) - Number(b.id));

  const wanted = [...new Set([...DEFAULT_SEARCH_PROPERTIES, ...(request.properties ?? [])])];
  const page = matching.slice(after, after + limit).map((contact) => view(contact, wanted));
  const next = after + limit;
  return { total: matching.length, results: page, ...(next < matching.length ? { paging: { next: { after: String(next) } } } : {}) };
}

/** Only the first sort counts (HubSpot: "only one sorting rule can be applied"); both the object and the `-name` string form are accepted. */
function firstSort(sorts: SearchRequest['sorts']): { propertyName: string; descending: boolean } | null {
  const first = sorts?.[0];
  if (first === undefined) return null;
  if (typeof first === 'string') return first.startsWith('-') ? { propertyName: first.slice(1), descending: true } : { propertyName: first, descending: false };
  return { propertyName: first.propertyName, descending: first.direction === 'DESCENDING' };
}

function validateFilter(portal: Portal, filter: Filter): void {
  if (!OPERATORS.includes(filter.operator)) throw new SearchValidationError(`Unknown operator ${String(filter.operator)}.`);
  if (!portal.properties.has(filter.propertyName)) throw new SearchValidationError(`There is no property named ${filter.propertyName}.`);
  const needsValue = !['HAS_PROPERTY', 'NOT_HAS_PROPERTY', 'IN', 'NOT_IN'].includes(filter.operator);
  if (needsValue && filter.value === undefined) throw new SearchValidationError(`Operator ${filter.operator} needs a value.`);
  if ((filter.operator === 'IN' || filter.operator === 'NOT_IN') && !Array.isArray(filter.values)) throw new SearchValidationError(`Operator ${filter.operator} needs values.`);
  if (filter.operator === 'BETWEEN' && filter.highValue === undefined) throw new SearchValidationError('Operator BETWEEN needs a highValue.');
}

/**
 * One filter against one contact. Numbers compare as numbers on number
 * properties, strings case-insensitively. A property without a value matches
 * only NOT_HAS_PROPERTY: how NEQ and NOT_IN treat unset values is not
 * documented, so the stand-in takes the stricter reading and a client must
 * ask for unset values with NOT_HAS_PROPERTY, as the brief advises.
 */
function matches(portal: Portal, values: Record<string, string>, filter: Filter): boolean {
  const raw = values[filter.propertyName];
  const has = raw !== undefined && raw !== '';
  if (filter.operator === 'HAS_PROPERTY') return has;
  if (filter.operator === 'NOT_HAS_PROPERTY') return !has;
  if (!has) return false;
  const type = portal.properties.get(filter.propertyName)?.type;
  // Dates and datetimes compare as moments, whether written as epoch milliseconds (how HubSpot's filters take them) or ISO 8601.
  const asNumber = type === 'number' ? Number : type === 'datetime' || type === 'date' ? (text: string) => (/^\d+$/.test(text) ? Number(text) : Date.parse(text)) : null;
  const compare = (other: string) => (asNumber ? asNumber(raw) - asNumber(other) : raw.toLowerCase().localeCompare(other.toLowerCase()));
  const same = (other: string) => (asNumber ? asNumber(raw) === asNumber(other) : raw.toLowerCase() === other.toLowerCase());
  switch (filter.operator) {
    case 'EQ': return same(filter.value!);
    case 'NEQ': return !same(filter.value!);
    case 'LT': return compare(filter.value!) < 0;
    case 'LTE': return compare(filter.value!) <= 0;
    case 'GT': return compare(filter.value!) > 0;
    case 'GTE': return compare(filter.value!) >= 0;
    case 'BETWEEN': return compare(filter.value!) >= 0 && compare(filter.highValue!) <= 0;
    case 'IN': return filter.values!.some(same);
    case 'NOT_IN': return !filter.values!.some(same);
    case 'CONTAINS_TOKEN': return tokens(raw).includes(filter.value!.toLowerCase().replace(/^\*|\*$/g, ''));
    case 'NOT_CONTAINS_TOKEN': return !tokens(raw).includes(filter.value!.toLowerCase().replace(/^\*|\*$/g, ''));
  }
}

const tokens = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

/** Unset values sort last whichever the direction; ties by record id, so that paging is stable. */
function compareBy(property: Property, descending: boolean) {
  return (a: Contact, b: Contact) => {
    const x = a.indexed[property.name];
    const y = b.indexed[property.name];
    if (x === undefined || y === undefined) return x === y ? Number(a.id) - Number(b.id) : x === undefined ? 1 : -1;
    const order = property.type === 'number' ? Number(x) - Number(y) : x.localeCompare(y);
    return (descending ? -order : order) || Number(a.id) - Number(b.id);
  };
}

export function view(contact: Contact, wanted: string[], source: Record<string, string> = contact.indexed) {
  return {
    id: contact.id,
    properties: Object.fromEntries(wanted.map((name) => [name, source[name] ?? null])),
    createdAt: contact.createdAt,
    updatedAt: contact.updatedAt,
    archived: false as const,
  };
}
