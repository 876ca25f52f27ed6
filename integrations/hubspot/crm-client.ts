// The HubSpot calls a CRM sync makes, through @hubspot/api-client with the
// configured base path. Every call waits for its portal's budget, shared by
// every process (search apart), and is retried as HubSpot documents: 429
// after Retry-After or the policy's window (TEN_SECONDLY_ROLLING 10 s,
// SECONDLY 1 s; DAILY is not retried), the portal held off meanwhile; 423
// after 2 s, 477 after Retry-After, 5xx and network errors with a growing
// pause; a 401 once with the token stored after it (refreshed then, unless
// another process already did: docs/crm.md#tokens). The SDK's own retry is
// off: it ignores Retry-After and the budget.
import { Client } from '@hubspot/api-client';
import { HubSpotAuthRevoked, HubSpotRejected, HubSpotUnavailable } from './errors.ts';
import { batchOutcomes, inBatches, type BatchOutcomes, type BatchReply } from './batch-results.ts';
import { scorePropertiesOf, type PropertyMetadata, type ScoreProperty } from './score-properties.ts';
import type { AccessTokenSource, CrmCallBudget } from '../crm/adapter.ts';
import type { CallKind } from './budget.ts';

export interface PropertyDefinition {
  name: string;
  label: string;
  type: 'string' | 'number' | 'enumeration' | 'datetime';
  fieldType: string;
  groupName: string;
  description: string;
  displayOrder?: number;
  options?: Array<{ label: string; value: string; displayOrder: number; hidden: boolean }>;
}

export interface ContactPage {
  total: number;
  contacts: Array<{ id: string; properties: Record<string, string | null> }>;
  /** The `after` cursor of the next page; null on the last. */
  next: string | null;
}

export interface SearchInput {
  /** Filter groups (ORed) of filters (ANDed), as HubSpot takes them. */
  filterGroups: Array<{ filters: Array<{ propertyName: string; operator: string; value?: string; values?: string[] }> }>;
  properties: string[];
  sort: { propertyName: string; direction: 'ASCENDING' | 'DESCENDING' };
  limit: number;
  after: string | null;
}

export interface HubSpotCrm {
  readonly portalId: number;
  /** Creates the group unless it exists (a 409 from a concurrent creator counts as done). */
  ensureGroup(name: string, label: string): Promise<'created' | 'existed'>;
  ensureProperty(property: PropertyDefinition): Promise<'created' | 'existed'>;
  /** Creates the property, known to be missing; a 409 (created meanwhile) counts as done. */
  createProperty(property: PropertyDefinition): Promise<'created' | 'existed'>;
  /** The names of the portal's live contact properties, in one call (GET /crm/v3/properties/contacts). */
  propertyNames(): Promise<Set<string>>;
  /** Contact properties that can be a lead score (the lead-score picker; integrations/hubspot/score-properties.ts). */
  scoreProperties(): Promise<ScoreProperty[]>;
  searchContacts(input: SearchInput): Promise<ContactPage>;
  getContact(contactId: string, properties: string[]): Promise<Record<string, string | null> | null>;
  updateContact(contactId: string, properties: Record<string, string>): Promise<void>;
  /** A note on the contact's timeline (association 202, note → contact); its id. */
  createNote(contactId: string, html: string, at: Date): Promise<string>;
  /** The id of a note on the contact whose body is exactly `html` (one written by a try that was cut off), or null. */
  findNote(contactId: string, html: string): Promise<string | null>;

  // Batches (docs/crm.md#batch-writes): at most 100 inputs a call, split here; each input's own outcome.
  /** The portal's contact properties with HubSpot's metadata, in one call. */
  contactProperties(): Promise<PropertyMetadata[]>;
  /** Creates the group (one call); a 409 (it exists) counts as done. */
  createGroup(name: string, label: string): Promise<'created' | 'existed'>;
  /** POST /crm/v3/properties/contacts/batch/create; a name taken meanwhile counts as created. */
  createProperties(properties: PropertyDefinition[]): Promise<BatchOutcomes<true>>;
  /** POST /crm/v3/objects/contacts/batch/read: the contacts found, with these properties; ids that name nothing are absent. */
  readContacts(contactIds: string[], properties: string[]): Promise<Map<string, Record<string, string | null>>>;
  /** POST /crm/v3/objects/contacts/batch/update: per contact id, written or refused (200 or 207). */
  updateContacts(inputs: Array<{ id: string; properties: Record<string, string> }>): Promise<BatchOutcomes<true>>;
  /**
   * POST /crm/v3/objects/notes/batch/create, each note associated with its
   * contact (202) and traced by `key` (objectWriteTraceId): per key, the new
   * note's id or why HubSpot refused it. Not repeated on an answer lost to
   * the network or a 5xx (HubSpot may have created them): the error goes up.
   */
  createNotes(inputs: Array<{ key: string; contactId: string; html: string; at: Date }>): Promise<BatchOutcomes<string>>;
  /** POST /crm/v4/associations/contacts/notes/batch/read: the ids of each contact's notes (none: absent). */
  noteIdsOf(contactIds: string[]): Promise<Map<string, string[]>>;
  /** POST /crm/v3/objects/notes/batch/read: each found note's body and when it was created. */
  readNotes(noteIds: string[]): Promise<Map<string, { body: string | null; createdAt: string | null }>>;
}

export interface RetryPolicy {
  attempts: number;
  tenSecondlyMs: number;
  secondlyMs: number;
  serverErrorBaseMs: number;
  /** Longer waits than this are not slept here: the error goes up for the caller (a Temporal retry) to wait. */
  maxWaitMs: number;
}

export const HUBSPOT_RETRY: RetryPolicy = { attempts: 5, tenSecondlyMs: 10_000, secondlyMs: 1_000, serverErrorBaseMs: 200, maxWaitMs: 15_000 };

const NOTE_TO_CONTACT = 202;

export function createHubSpotCrm(options: {
  apiBase: string;
  portalId: number;
  accessToken: AccessTokenSource;
  /** The portal's budget, shared by every process. */
  budget: CrmCallBudget;
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
}): HubSpotCrm {
  const retry = { ...HUBSPOT_RETRY, ...options.retry };
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const { portalId, budget } = options;
  const clients = new Map<string, Client>();
  const clientFor = (token: string) => {
    let client = clients.get(token);
    if (!client) {
      clients.clear();
      client = new Client({ accessToken: token, basePath: options.apiBase });
      clients.set(token, client);
    }
    return client;
  };

  /**
   * `isRepeatable: false` (a batch create, which HubSpot does not dedupe): an
   * answer lost to the network or a 5xx may come after HubSpot did the work,
   * so it is not sent again here; the error goes up, and the caller reads
   * back what exists before trying again. A 429 or 401 is safe to repeat:
   * HubSpot did nothing.
   */
  async function call<T>(kind: CallKind, run: (client: Client) => Promise<T>, isRepeatable = true): Promise<T> {
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      await budget.acquire(kind);
      const token = await options.accessToken();
      try {
        return await run(clientFor(token));
      } catch (error) {
        const status = (error as { code?: unknown }).code;
        const body = (error as { body?: unknown }).body;
        const headers = ((error as { headers?: Record<string, string> }).headers ?? {}) as Record<string, string>;
        if (typeof status !== 'number') {
          // The network: fetch failed before any answer.
          if (attempt >= retry.attempts || !isRepeatable) throw new HubSpotUnavailable(`HubSpot could not be reached: ${(error as Error).message}`, null, retry.serverErrorBaseMs * attempt);
          await sleep(retry.serverErrorBaseMs * 2 ** (attempt - 1));
          continue;
        }
        if (status === 401) {
          if (refreshed) throw new HubSpotAuthRevoked(`HubSpot refused a freshly refreshed token: ${JSON.stringify(body)}`);
          refreshed = true;
          await options.accessToken({ refused: token });
          continue;
        }
        const wait = waitFor(status, body, headers, attempt);
        if (wait === null) throw new HubSpotRejected(status, body);
        if (status === 429) await budget.holdOff(wait);
        if (attempt >= retry.attempts || wait > retry.maxWaitMs || (status >= 500 && !isRepeatable)) throw new HubSpotUnavailable(`HubSpot answered ${status} ${attempt} time(s)`, status, wait);
        await sleep(wait);
      }
    }
  }

  /** How long to wait before trying again, or null when the answer is final. */
  function waitFor(status: number, body: unknown, headers: Record<string, string>, attempt: number): number | null {
    const retryAfter = Number(headers['retry-after'] ?? headers['Retry-After']);
    const asked = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null;
    if (status === 429) {
      const policy = (body as { policyName?: string } | null)?.policyName;
      if (policy === 'DAILY') return null;
      return asked ?? (policy === 'SECONDLY' ? retry.secondlyMs : retry.tenSecondlyMs);
    }
    if (status === 423) return asked ?? 2_000;
    if (status === 477) return asked ?? 2_000;
    if (status >= 500) return asked ?? retry.serverErrorBaseMs * 2 ** (attempt - 1);
    return null;
  }

  async function ensure(get: (client: Client) => Promise<unknown>, create: (client: Client) => Promise<unknown>): Promise<'created' | 'existed'> {
    try {
      await call('general', get);
      return 'existed';
    } catch (error) {
      if (!(error instanceof HubSpotRejected && error.isNotFound)) throw error;
    }
    return createUnlessExists(create);
  }

  async function createUnlessExists(create: (client: Client) => Promise<unknown>): Promise<'created' | 'existed'> {
    try {
      await call('general', create);
      return 'created';
    } catch (error) {
      // Another run created it between our read and our create.
      if (error instanceof HubSpotRejected && error.isConflict) return 'existed';
      throw error;
    }
  }

  return {
    portalId,
    ensureGroup: (name, label) =>
      ensure(
        (client) => client.crm.properties.groupsApi.getByName('contacts', name),
        (client) => client.crm.properties.groupsApi.create('contacts', { name, label, displayOrder: -1 }),
      ),
    ensureProperty: (property) =>
      ensure(
        (client) => client.crm.properties.coreApi.getByName('contacts', property.name),
        (client) => client.crm.properties.coreApi.create('contacts', property as never),
      ),
    createProperty: (property) => createUnlessExists((client) => client.crm.properties.coreApi.create('contacts', property as never)),
    async propertyNames() {
      const all = await call('general', (client) => client.crm.properties.coreApi.getAll('contacts', false));
      return new Set(all.results.map((property) => property.name));
    },
    async scoreProperties() {
      const all = await call('general', (client) => client.crm.properties.coreApi.getAll('contacts', false));
      return scorePropertiesOf(all.results);
    },
    async searchContacts(input) {
      const page = await call('search', (client) =>
        client.crm.contacts.searchApi.doSearch({
          filterGroups: input.filterGroups as never,
          properties: input.properties,
          // The SDK types sorts as string[]; HubSpot's documented form is the object.
          sorts: [input.sort] as never,
          limit: input.limit,
          ...(input.after !== null ? { after: input.after } : {}),
        }),
      );
      return {
        total: page.total,
        contacts: page.results.map((contact) => ({ id: contact.id, properties: contact.properties as Record<string, string | null> })),
        next: page.paging?.next?.after ?? null,
      };
    },
    async getContact(contactId, properties) {
      try {
        const contact = await call('general', (client) => client.crm.contacts.basicApi.getById(contactId, properties));
        return contact.properties as Record<string, string | null>;
      } catch (error) {
        if (error instanceof HubSpotRejected && error.isNotFound) return null;
        throw error;
      }
    },
    async updateContact(contactId, properties) {
      await call('general', (client) => client.crm.contacts.basicApi.update(contactId, { properties }));
    },
    async createNote(contactId, html, at) {
      const note = await call('general', (client) =>
        client.crm.objects.notes.basicApi.create({
          properties: { hs_timestamp: at.toISOString(), hs_note_body: html },
          associations: [{ to: { id: contactId }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: NOTE_TO_CONTACT }] }],
        }),
      );
      return note.id;
    },
    async findNote(contactId, html) {
      const contact = await call('general', (client) => client.crm.contacts.basicApi.getById(contactId, ['hs_object_id'], undefined, ['notes']));
      for (const { id } of contact.associations?.notes?.results ?? []) {
        const note = await call('general', (client) => client.crm.objects.notes.basicApi.getById(id, ['hs_note_body']));
        if (note.properties.hs_note_body === html) return id;
      }
      return null;
    },
    async contactProperties() {
      const all = await call('general', (client) => client.crm.properties.coreApi.getAll('contacts', false));
      return all.results as PropertyMetadata[];
    },
    createGroup: (name, label) => createUnlessExists((client) => client.crm.properties.groupsApi.create('contacts', { name, label, displayOrder: -1 })),
    async createProperties(properties) {
      const outcomes: BatchOutcomes<true> = { done: new Map(), refused: new Map() };
      for (const batch of inBatches(properties)) {
        const reply = await call('general', (client) => client.crm.properties.batchApi.create('contacts', { inputs: batch as never }));
        const { done, refused } = batchOutcomes(batch.map((property) => property.name), reply as BatchReply<{ name: string }>, (result) => result.name, 'name');
        for (const name of done.keys()) outcomes.done.set(name, true);
        // Created by another run between our listing and this call.
        for (const [name, reason] of refused) (reason.startsWith('OBJECT_ALREADY_EXISTS') ? outcomes.done.set(name, true) : outcomes.refused.set(name, reason));
      }
      return outcomes;
    },
    async readContacts(contactIds, properties) {
      const found = new Map<string, Record<string, string | null>>();
      for (const batch of inBatches([...new Set(contactIds)])) {
        const reply = await call('general', (client) =>
          client.crm.contacts.batchApi.read({ inputs: batch.map((id) => ({ id })), properties, propertiesWithHistory: [] }),
        );
        for (const contact of reply.results) found.set(contact.id, contact.properties as Record<string, string | null>);
      }
      return found;
    },
    async updateContacts(inputs) {
      const outcomes: BatchOutcomes<true> = { done: new Map(), refused: new Map(), refusedForGood: new Set() };
      for (const batch of inBatches(inputs)) {
        const reply = await call('general', (client) => client.crm.contacts.batchApi.update({ inputs: batch }));
        const { done, refused } = batchOutcomes(batch.map((input) => input.id), reply as BatchReply<{ id: string }>, (result) => result.id, 'ids');
        for (const id of done.keys()) outcomes.done.set(id, true);
        for (const [id, reason] of refused) {
          outcomes.refused.set(id, reason);
          // An archived (deleted) or merged-away contact: HubSpot names it OBJECT_NOT_FOUND, and no write will find it again.
          if (reason.startsWith('OBJECT_NOT_FOUND')) outcomes.refusedForGood!.add(id);
        }
      }
      return outcomes;
    },
    async createNotes(inputs) {
      const outcomes: BatchOutcomes<string> = { done: new Map(), refused: new Map() };
      for (const batch of inBatches(inputs)) {
        const reply = await call(
          'general',
          (client) =>
            client.crm.objects.notes.batchApi.create({
              inputs: batch.map((input) => ({
                properties: { hs_timestamp: input.at.toISOString(), hs_note_body: input.html },
                associations: [{ to: { id: input.contactId }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: NOTE_TO_CONTACT }] }],
                // One per input: HubSpot then answers each refused note on its own (207) instead of refusing the batch.
                objectWriteTraceId: input.key,
              })),
            }),
          false,
        );
        const { done, refused } = batchOutcomes(batch.map((input) => input.key), reply as BatchReply<{ id: string; objectWriteTraceId?: string }>, (result) => result.objectWriteTraceId, 'objectWriteTraceId');
        for (const [key, note] of done) outcomes.done.set(key, note.id);
        for (const [key, reason] of refused) outcomes.refused.set(key, reason);
      }
      return outcomes;
    },
    async noteIdsOf(contactIds) {
      const notes = new Map<string, string[]>();
      let pending: Array<{ id: string; after?: string }> = [...new Set(contactIds)].map((id) => ({ id }));
      while (pending.length > 0) {
        const next: typeof pending = [];
        for (const batch of inBatches(pending)) {
          // A contact without notes comes back as an error of a 207: it has none.
          const reply = await call('general', (client) => client.crm.associations.v4.batchApi.getPage('contacts', 'notes', { inputs: batch }));
          for (const result of reply.results) {
            notes.set(result._from.id, [...(notes.get(result._from.id) ?? []), ...result.to.map((each) => String(each.toObjectId))]);
            if (result.paging?.next?.after) next.push({ id: result._from.id, after: result.paging.next.after });
          }
        }
        pending = next;
      }
      return notes;
    },
    async readNotes(noteIds) {
      const notes = new Map<string, { body: string | null; createdAt: string | null }>();
      for (const batch of inBatches([...new Set(noteIds)])) {
        const reply = await call('general', (client) =>
          client.crm.objects.notes.batchApi.read({ inputs: batch.map((id) => ({ id })), properties: ['hs_note_body', 'hs_createdate'], propertiesWithHistory: [] }),
        );
        for (const note of reply.results) notes.set(note.id, { body: note.properties.hs_note_body ?? null, createdAt: note.properties.hs_createdate ?? null });
      }
      return notes;
    },
  };
}
