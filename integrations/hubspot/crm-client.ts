// The HubSpot calls a CRM sync makes, through @hubspot/api-client with the
// configured base path. Every call waits for its portal's throttle (search
// apart), and is retried as HubSpot documents: 429 after Retry-After or the
// policy's window (TEN_SECONDLY_ROLLING 10 s, SECONDLY 1 s; DAILY is not
// retried), 423 after 2 s, 477 after Retry-After, 5xx and network errors with
// a growing pause; a 401 once after a forced token refresh (a token expiring
// mid-run). The SDK's own retry is off: it ignores Retry-After and the throttle.
import { Client } from '@hubspot/api-client';
import { HubSpotAuthRevoked, HubSpotRejected, HubSpotUnavailable } from './errors.ts';
import { scorePropertiesOf, type ScoreProperty } from './score-properties.ts';
import type { CallKind, PortalThrottle } from './throttle.ts';

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

export interface AccessTokenSource {
  /** A live access token; `force` refreshes even when the stored one looks valid (HubSpot said 401). */
  (options?: { force?: boolean }): Promise<string>;
}

const NOTE_TO_CONTACT = 202;

export function createHubSpotCrm(options: {
  apiBase: string;
  portalId: number;
  accessToken: AccessTokenSource;
  throttle: PortalThrottle;
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
}): HubSpotCrm {
  const retry = { ...HUBSPOT_RETRY, ...options.retry };
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const { portalId, throttle } = options;
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

  async function call<T>(kind: CallKind, run: (client: Client) => Promise<T>): Promise<T> {
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      await throttle.acquire(portalId, kind);
      const token = await options.accessToken({ force: false });
      try {
        return await run(clientFor(token));
      } catch (error) {
        const status = (error as { code?: unknown }).code;
        const body = (error as { body?: unknown }).body;
        const headers = ((error as { headers?: Record<string, string> }).headers ?? {}) as Record<string, string>;
        if (typeof status !== 'number') {
          // The network: fetch failed before any answer.
          if (attempt >= retry.attempts) throw new HubSpotUnavailable(`HubSpot could not be reached: ${(error as Error).message}`, null, retry.serverErrorBaseMs * attempt);
          await sleep(retry.serverErrorBaseMs * 2 ** (attempt - 1));
          continue;
        }
        if (status === 401) {
          if (refreshed) throw new HubSpotAuthRevoked(`HubSpot refused a freshly refreshed token: ${JSON.stringify(body)}`);
          refreshed = true;
          await options.accessToken({ force: true });
          continue;
        }
        const wait = waitFor(status, body, headers, attempt);
        if (wait === null) throw new HubSpotRejected(status, body);
        if (status === 429) throttle.holdOff(portalId, kind, wait);
        if (attempt >= retry.attempts || wait > retry.maxWaitMs) throw new HubSpotUnavailable(`HubSpot answered ${status} ${attempt} time(s)`, status, wait);
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
  };
}
