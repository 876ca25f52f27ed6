// HubSpot behind the CRM adapter (integrations/crm/adapter.ts): our fields
// are the product's contact properties `pe_<id>_<field>` in the group
// `pe_<id>`; candidates come from the contacts search; writes, notes and
// reads go through HubSpot's batch endpoints, 100 inputs a call
// (docs/crm.md#batch-writes). The calls themselves, their retries and the
// portal's budget are the client's (crm-client.ts).
import { hubspotContactUrl } from '../../domain/crm/crm.ts';
import { crmGroupName, crmPropertyName, CRM_FIELDS, CRM_STATUS_VALUES, type CrmField } from '../../domain/crm/fields.ts';
import type { CandidateQuery, CrmAdapter, CrmContact, OwnValues } from '../crm/adapter.ts';
import type { HubSpotCrm, SearchInput } from './crm-client.ts';
import { HubSpotRejected } from './errors.ts';
import { mappablePropertiesOf } from './mappable-properties.ts';
import { scorePropertiesOf } from './score-properties.ts';

/** Search pages: well under the documented 200, and never past the 10,000-result cap. */
const SEARCH_PAGE = 100;
const SEARCH_CAP = 10_000;
/** HubSpot's default lead score: the HubSpot Score (`hubspotscore`). */
export const HUBSPOT_DEFAULT_SCORE_FIELD = 'hubspotscore';

/** A HubSpot time as written (ISO 8601) or as HubSpot may answer it (epoch milliseconds), as ISO 8601. */
function isoMoment(value: string | null | undefined): string | undefined {
  if (!value) return undefined;
  return /^\d+$/.test(value) ? new Date(Number(value)).toISOString() : value;
}

export function createHubSpotAdapter(options: { crm: HubSpotCrm; appBase: string }): CrmAdapter {
  const { crm } = options;
  const portalId = String(crm.portalId);
  const ownName = (productId: number, field: CrmField) => crmPropertyName(productId, field);

  function contactOf(productId: number, id: string, properties: Record<string, string | null>, scoreField: string | null, mapped: string[]): CrmContact {
    const own: OwnValues = {};
    for (const { field } of CRM_FIELDS) {
      const value = properties[ownName(productId, field)];
      if (value !== undefined && value !== null && value !== '') own[field] = field === 'enriched_at' ? isoMoment(value) : value;
    }
    const score = scoreField ? properties[scoreField] : null;
    return {
      id,
      email: properties.email ?? null,
      name: [properties.firstname, properties.lastname].filter(Boolean).join(' ') || null,
      score: score ? Number(score) : null,
      own,
      mapped: Object.fromEntries(mapped.map((key) => [key, properties[key] ?? null])),
    };
  }

  const writeProperties = (productId: number, own: OwnValues, mapped: Record<string, string>) => ({
    ...mapped,
    ...Object.fromEntries(Object.entries(own).map(([field, value]) => [ownName(productId, field as CrmField), value])),
  });

  return {
    provider: 'hubspot',
    portalId,
    maxBatch: 100,

    async fieldMetadata() {
      const all = await crm.contactProperties();
      return { scoreFields: scorePropertiesOf(all), mappableFields: mappablePropertiesOf(all) };
    },

    /**
     * One listing call finds what exists, so a run after the first spends one
     * call here; the missing properties are created with the group (a 409: it
     * exists) in one batch call, so a first run spends three.
     */
    async ensureOwnFields(product) {
      const existing = await crm.propertyNames();
      const missing = CRM_FIELDS.map((field, index) => ({ field, index })).filter(({ field }) => !existing.has(ownName(product.id, field.field)));
      if (missing.length === 0) return { ready: true };
      const group = crmGroupName(product.id);
      await crm.createGroup(group, `Prospect Enrichment: ${product.name}`.slice(0, 100));
      const created = await crm.createProperties(missing.map(({ field, index }) => ({
        name: ownName(product.id, field.field),
        label: `${field.label} (${product.name})`.slice(0, 100),
        type: field.type,
        fieldType: field.fieldType,
        groupName: group,
        description: `Written by Prospect Enrichment for ${product.name}.`,
        ...(field.type === 'enumeration'
          ? { options: CRM_STATUS_VALUES.map((value, order) => ({ label: value.replace('_', ' '), value, displayOrder: order, hidden: false })) }
          : {}),
        displayOrder: index,
      })));
      // Without its properties the run cannot write anything: a refusal here ends it.
      const [refused] = created.refused;
      if (refused) throw new HubSpotRejected(400, { category: 'VALIDATION_ERROR', message: `HubSpot refused the property ${refused[0]}: ${refused[1]}` });
      return { ready: true };
    },

    /**
     * Score at or above the minimum and status not `completed`: two filter
     * groups (how NEQ treats an unset property is not documented), with
     * re-enrichment a third of completed ones enriched before the cutoff.
     * Before the product's first run its status property does not exist and
     * HubSpot refuses a filter on it: then no contact can be completed, and
     * the score alone decides (a preview creates nothing).
     */
    async findCandidates(query: CandidateQuery, cursor) {
      const status = ownName(query.productId, 'status');
      const enrichedAt = ownName(query.productId, 'enriched_at');
      const score = { propertyName: query.scoreField, operator: 'GTE', value: String(query.minScore) };
      const search = (hasStatus: boolean): SearchInput => ({
        filterGroups: hasStatus
          ? [
              { filters: [score, { propertyName: status, operator: 'NOT_HAS_PROPERTY' }] },
              { filters: [score, { propertyName: status, operator: 'NOT_IN', values: ['completed'] }] },
              ...(query.reEnrichBefore
                ? [{ filters: [score, { propertyName: status, operator: 'EQ', value: 'completed' }, { propertyName: enrichedAt, operator: 'LT', value: String(query.reEnrichBefore.getTime()) }] }]
                : []),
            ]
          : [{ filters: [score] }],
        properties: [...new Set(['email', 'firstname', 'lastname', 'company', query.scoreField, ...(hasStatus ? [status, enrichedAt] : []), ...query.mapped])],
        sort: { propertyName: query.scoreField, direction: 'DESCENDING' },
        limit: SEARCH_PAGE,
        after: cursor,
      });
      const page = await crm.searchContacts(search(true)).catch((error: unknown) => {
        if (!(error instanceof HubSpotRejected && error.status === 400 && error.message.includes(status))) throw error;
        return crm.searchContacts(search(false));
      });
      return {
        contacts: page.contacts.map((contact) => contactOf(query.productId, contact.id, contact.properties, query.scoreField, query.mapped)),
        next: page.next !== null && Number(page.next) + SEARCH_PAGE <= SEARCH_CAP ? page.next : null,
      };
    },

    async readContacts(productId, contactIds, mapped) {
      const own = CRM_FIELDS.filter(({ field }) => field === 'status' || field === 'enriched_at').map(({ field }) => ownName(productId, field));
      const found = await crm.readContacts(contactIds, [...new Set(['email', 'firstname', 'lastname', ...own, ...mapped])]);
      return new Map([...found].map(([id, properties]) => [id, contactOf(productId, id, properties, null, mapped)]));
    },

    updateContacts: (productId, inputs) => crm.updateContacts(inputs.map((input) => ({ id: input.id, properties: writeProperties(productId, input.own, input.mapped) }))),

    createNotes: (inputs) => crm.createNotes(inputs),

    async findNotes(inputs, since) {
      const linked = await crm.noteIdsOf(inputs.map((input) => input.contactId));
      const notes = await crm.readNotes([...linked.values()].flat());
      const found = new Map<string, string>();
      for (const { contactId, html } of inputs) {
        // An earlier run's note may read the same (the research cache can give the same texts): only notes made since `since`.
        const match = (linked.get(contactId) ?? []).find((noteId) => {
          const note = notes.get(noteId);
          return note?.body === html && Date.parse(isoMoment(note.createdAt) ?? '') >= since.getTime();
        });
        if (match) found.set(contactId, match);
      }
      return found;
    },

    contactUrl: (contactId) => hubspotContactUrl(options.appBase, crm.portalId, contactId),
  };
}
