// Pipedrive behind the one CRM boundary (integrations/crm/adapter.ts;
// docs/crm-pipedrive.md). Persons through API v2 (cursor pages, PATCH one by
// one: Pipedrive has no batch update, so `maxBatch` is 1), person fields,
// saved filters and notes through API v1, where v2 has no such calls yet.
// Our fields' hash keys are Pipedrive's choice: they are kept per connection
// and product in the OwnFieldKeyStore.
import type { CrmField } from '../../domain/crm/fields.ts';
import type {
  AccessTokenSource, CandidatePage, CandidateQuery, ContactWrite, CrmAdapter, CrmCallBudget, CrmConnectionRef, CrmContact, NoteInput, OwnFieldKeyStore,
} from '../crm/adapter.ts';
import { CrmRejected } from '../crm/errors.ts';
import { candidateConditions, candidateFilterName } from './candidate-filter.ts';
import { createPipedriveClient, pipedriveApi, type RetryPolicy, type Transport } from './client.ts';
import type { PipedriveConfig } from './config.ts';
import { mappableFieldsOf, mappedValue, numberOf, ownCustomFields, ownValuesOf, scoreFieldsOf, textOf, type PersonField } from './fields.ts';
import { ensureOwnFields } from './own-fields.ts';

/** Pipedrive has no lead score of its own: the admin picks one of the company's number fields. */
export const PIPEDRIVE_DEFAULT_SCORE_FIELD: string | null = null;

/** A person's page in Pipedrive's app, on the company's own domain (the token's api_domain). */
export const pipedrivePersonUrl = (apiBase: string, personId: string) => `${apiBase.replace(/\/+$/, '')}/person/${encodeURIComponent(personId)}`;

const PAGE_SIZE = 100;

interface Person {
  id: number;
  name: string | null;
  emails?: Array<{ value: string; primary?: boolean }> | null;
  custom_fields?: Record<string, unknown> | null;
}

interface Listing<T> {
  data: T[] | null;
  additional_data?: { next_cursor?: string | null; pagination?: { more_items_in_collection?: boolean; next_start?: number } } | null;
}

export interface PipedriveAdapterOptions {
  config: PipedriveConfig;
  connection: CrmConnectionRef;
  accessToken: AccessTokenSource;
  budget: CrmCallBudget;
  fieldKeys: OwnFieldKeyStore;
  transport?: Transport;
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
}

export function createPipedriveAdapter(options: PipedriveAdapterOptions): CrmAdapter {
  const { config, connection, fieldKeys } = options;
  const apiBase = (connection.apiBase ?? config.apiBase).replace(/\/+$/, '');
  const client = createPipedriveClient({ ...options, apiBase, dailyReservePercent: config.limits.dailyReservePercent });
  let fieldsRead: Promise<PersonField[]> | null = null;
  const filterIds = new Map<number, number>();
  const ensuring = new Map<number, ReturnType<CrmAdapter['ensureOwnFields']>>();

  /** The company's person fields, read once per adapter unless `isFresh` (GET /v1/personFields, 500 a page). */
  function personFields(isFresh = false): Promise<PersonField[]> {
    if (isFresh || fieldsRead === null) {
      fieldsRead = (async () => {
        const all: PersonField[] = [];
        for (let start = 0; ; ) {
          const page = await client.call<Listing<PersonField>>('listPersonFields', (sdk) => pipedriveApi.personFields(sdk).getPersonFields(start, 500));
          all.push(...(page.data ?? []));
          const pagination = page.additional_data?.pagination;
          if (!pagination?.more_items_in_collection || pagination.next_start === undefined) return all;
          start = pagination.next_start;
        }
      })();
      fieldsRead.catch(() => (fieldsRead = null));
    }
    return fieldsRead;
  }

  async function ownKeys(productId: number) {
    const keys = await fieldKeys.get(productId);
    if (!keys?.status) throw new CrmRejected(404, `Pipedrive: the fields of product ${productId} are not set up yet (ensureOwnFields first)`);
    return keys;
  }

  function contactOf(person: Person, keys: Partial<Record<CrmField, string>>, fields: PersonField[], scoreKey: string | null, mapped: string[]): CrmContact {
    const custom = person.custom_fields ?? {};
    const emails = person.emails ?? [];
    const email = (emails.find((each) => each.primary) ?? emails[0])?.value?.trim() || null;
    return {
      id: String(person.id),
      email,
      name: person.name?.trim() || null,
      score: scoreKey ? numberOf(custom[scoreKey]) : null,
      own: ownValuesOf(custom, keys, fields.find((field) => field.key === keys.status)),
      mapped: Object.fromEntries(mapped.map((key) => [key, textOf(custom[key])])),
    };
  }

  /** Our filter for the product: found by name (the oldest, should concurrent runs have made two) or made with these conditions; else given them. */
  async function upsertFilter(productId: number, conditions: object): Promise<number> {
    let id = filterIds.get(productId);
    if (id === undefined) {
      const all = await client.call<Listing<{ id: number; name: string }>>('listFilters', (sdk) => pipedriveApi.filters(sdk).getFilters('people'));
      id = (all.data ?? []).filter((filter) => filter.name === candidateFilterName(productId)).map((filter) => filter.id).sort((a, b) => a - b)[0];
      if (id === undefined) {
        const made = await client.call<{ data: { id: number } }>('addFilter', (sdk) => pipedriveApi.filters(sdk).addFilter(undefined, { name: candidateFilterName(productId), type: 'people', conditions }));
        filterIds.set(productId, made.data.id);
        return made.data.id;
      }
      filterIds.set(productId, id);
    }
    await client.call('updateFilter', (sdk) => pipedriveApi.filters(sdk).updateFilter(id, undefined, { conditions }));
    return id;
  }

  return {
    provider: 'pipedrive',
    portalId: connection.portalId,
    maxBatch: 1,

    async fieldMetadata() {
      const fields = await personFields(true);
      return { scoreFields: scoreFieldsOf(fields), mappableFields: mappableFieldsOf(fields) };
    },

    ensureOwnFields(product) {
      // Calls at once in this process share one pass; other processes are settled by field id (own-fields.ts).
      let pending = ensuring.get(product.id);
      if (!pending) {
        pending = ensureOwnFields({ client, product, fieldKeys, personFields }).finally(() => ensuring.delete(product.id));
        ensuring.set(product.id, pending);
      }
      return pending;
    },

    /**
     * Every person the filter gives, up to the scan limit (pages of 100 by
     * id: API v2 sorts persons by id or time only), sorted by score here,
     * highest first, in one page.
     */
    async findCandidates(query: CandidateQuery, cursor: string | null): Promise<CandidatePage> {
      if (cursor !== null) return { contacts: [], next: null };
      // None yet before the product's first run (a preview): then nobody can be completed.
      const keys = (await fieldKeys.get(query.productId)) ?? {};
      const fields = await personFields(true);
      const byKey = (key: string | undefined) => fields.find((field) => field.key === key);
      const score = byKey(query.scoreField);
      if (!score) throw new CrmRejected(404, `Pipedrive: the lead score field ${query.scoreField} is gone`);
      const status = byKey(keys.status);
      const enrichedAt = byKey(keys.enriched_at);
      const filterId = await upsertFilter(query.productId, candidateConditions(query, { score, status, enrichedAt }));
      const contacts: CrmContact[] = [];
      for (let next: string | undefined; contacts.length < config.limits.candidateScanLimit; ) {
        const page = await client.call<Listing<Person>>('listPersons', (sdk) =>
          pipedriveApi.persons(sdk).getPersons(filterId, undefined, undefined, undefined, undefined, undefined, undefined, 'id', 'asc', undefined, undefined, undefined, undefined, PAGE_SIZE, next),
        );
        contacts.push(...(page.data ?? []).map((person) => contactOf(person, keys, fields, query.scoreField, query.mapped)));
        next = page.additional_data?.next_cursor ?? undefined;
        if (!next) break;
      }
      // The filter's answer, checked again: a changed field or option must not let a completed person through.
      const cutoff = query.reEnrichBefore?.toISOString().slice(0, 10) ?? null;
      const due = contacts.filter(
        (contact) => contact.score !== null && contact.score >= query.minScore
          && (contact.own.status !== 'completed' || (cutoff !== null && (contact.own.enriched_at ?? '') < cutoff)),
      );
      due.sort((a, b) => b.score! - a.score! || Number(a.id) - Number(b.id));
      return { contacts: due, next: null };
    },

    async readContacts(productId, contactIds, mapped) {
      const keys = await ownKeys(productId);
      const fields = await personFields();
      const found = new Map<string, CrmContact>();
      const ids = [...new Set(contactIds)].filter((id) => /^\d+$/.test(id));
      for (let at = 0; at < ids.length; at += PAGE_SIZE) {
        const batch = ids.slice(at, at + PAGE_SIZE);
        const page = await client.call<Listing<Person>>('listPersons', (sdk) =>
          pipedriveApi.persons(sdk).getPersons(undefined, batch.join(','), undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, PAGE_SIZE),
        );
        for (const person of page.data ?? []) found.set(String(person.id), contactOf(person, keys, fields, null, mapped));
      }
      return found;
    },

    async updateContacts(productId, inputs: ContactWrite[]) {
      const keys = await ownKeys(productId);
      const fields = await personFields();
      const outcomes = { done: new Map<string, true>(), refused: new Map<string, string>(), refusedForGood: new Set<string>() };
      for (const input of inputs) {
        const custom: Record<string, string | number | null> = {};
        for (const [key, value] of Object.entries(input.mapped)) {
          const typed = mappedValue(fields.find((field) => field.key === key), value);
          if (typed !== null) custom[key] = typed;
        }
        Object.assign(custom, ownCustomFields(input.own, keys, fields.find((field) => field.key === keys.status)));
        try {
          await client.call('updatePerson', (sdk) => pipedriveApi.persons(sdk).updatePerson(Number(input.id), { custom_fields: custom }));
          outcomes.done.set(input.id, true);
        } catch (error) {
          if (!(error instanceof CrmRejected)) throw error;
          outcomes.refused.set(input.id, error.message);
          // A person deleted (410 Gone, "old resource permanently unavailable" in Pipedrive's status codes) or never there (404).
          if (error.status === 404 || error.status === 410) outcomes.refusedForGood.add(input.id);
        }
      }
      return outcomes;
    },

    async createNotes(inputs: NoteInput[]) {
      const outcomes = { done: new Map<string, string>(), refused: new Map<string, string>() };
      for (const input of inputs) {
        try {
          // No add_time: Pipedrive stamps the note when it makes it, which is what findNotes looks for.
          const made = await client.call<{ data: { id: number } }>('addNote', (sdk) => pipedriveApi.notes(sdk).addNote({ content: input.html, person_id: Number(input.contactId) }), { isRepeatable: false });
          outcomes.done.set(input.key, String(made.data.id));
        } catch (error) {
          if (!(error instanceof CrmRejected)) throw error;
          outcomes.refused.set(input.key, error.message);
        }
      }
      return outcomes;
    },

    async findNotes(inputs, since) {
      const found = new Map<string, string>();
      // add_time is UTC to the second ("YYYY-MM-DD HH:MM:SS").
      const sinceText = since.toISOString().slice(0, 19).replace('T', ' ');
      for (const input of inputs) {
        const page = await client.call<Listing<{ id: number; content: string; add_time: string }>>('listNotes', (sdk) =>
          pipedriveApi.notes(sdk).getNotes(undefined, undefined, undefined, Number(input.contactId), undefined, undefined, undefined, 0, 500, 'add_time ASC', since.toISOString().slice(0, 10)),
        );
        const note = (page.data ?? []).find((each) => noteText(each.content) === noteText(input.html) && each.add_time >= sinceText);
        if (note) found.set(input.contactId, String(note.id));
      }
      return found;
    },

    contactUrl: (contactId) => pipedrivePersonUrl(apiBase, contactId),
  };
}

/**
 * A note's words, markup and spacing aside: Pipedrive cleans a note's HTML
 * when it saves it (docs/crm-pipedrive.md), so the body read back need not
 * be the one sent, while its text is.
 */
export function noteText(html: string): string {
  const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_all, name: string) => entities[name]!)
    .replace(/\s+/g, ' ')
    .trim();
}
