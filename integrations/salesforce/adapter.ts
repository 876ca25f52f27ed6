// The CRM adapter for Salesforce (docs/crm-salesforce.md): Contacts or Leads
// (a product setting), read with SOQL and written with sObject Collections
// (≤ 200 records a call, allOrNone false, a SaveResult per record in order).
// Notes are ContentNotes (HTML, shown in the record's Notes list) linked by a
// ContentDocumentLink, both created through sObject Collections; a Task's
// Description is plain text and would show our HTML as tags. The note is
// created first and never sent twice (an answer lost may come after
// Salesforce made it); the links are safe to repeat (a second link to the
// same note is refused DUPLICATE_VALUE, which counts as done).
import type { AccessTokenSource, BatchOutcomes, CrmAdapter, CrmCallBudget, CrmConnectionRef, CrmContact, OwnFieldKeyStore, OwnFieldsState } from '../crm/adapter.ts';
import { CrmRejected } from '../crm/errors.ts';
import type { SalesforceConfig } from './config.ts';
import { mappableFieldsOf, scoreFieldsOf, type DescribeField } from './field-metadata.ts';
import { adminSteps, fromSalesforce, ownFieldDefinitions, ownFieldName, ownFieldNames, toSalesforce } from './fields.ts';
import { createSalesforceRest, SalesforceRejected, type RetryPolicy } from './rest.ts';

export type SalesforceObject = 'Contact' | 'Lead';

/** A record's page in the org's Lightning app. */
export const salesforceRecordUrl = (instanceUrl: string, object: SalesforceObject, recordId: string) =>
  `${instanceUrl.replace(/\/+$/, '')}/lightning/r/${object}/${encodeURIComponent(recordId)}/view`;

/** sObject Collections: up to 200 records a call. */
const MAX_RECORDS = 200;
/** Records a query page holds (Sforce-Query-Options batchSize: 200 to 2,000). */
const QUERY_BATCH = 200;
const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const RECORD_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;
/** Key prefixes of the records a note can be on: Contact, Lead. */
const RECORD_PREFIXES = ['003', '00Q'];
const REFUSED_RIGHTS = new Set(['INSUFFICIENT_ACCESS_OR_READONLY', 'INSUFFICIENT_ACCESS', 'INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY', 'API_DISABLED_FOR_ORG']);
/**
 * A record's SaveResult codes that no later write can change (SOAP API
 * Developer Guide, "Core Data Types Used in API Calls", StatusCode): a
 * converted Lead is read-only for good (CANNOT_UPDATE_CONVERTED_LEAD,
 * "cannot reference converted lead": Salesforce Help article 000384333), a
 * deleted record stays deleted for the API (ENTITY_IS_DELETED). Locks
 * (UNABLE_TO_LOCK_ROW), limits and the org's validation rules (whose data
 * the owner may fix) are tried again by a later run.
 */
const REFUSED_FOR_GOOD = new Set(['CANNOT_UPDATE_CONVERTED_LEAD', 'ENTITY_IS_DELETED']);

interface SaveResult {
  id?: string;
  success: boolean;
  errors?: Array<{ statusCode: string; message: string }>;
}

interface QueryReply<R> {
  records: R[];
  nextRecordsUrl?: string;
}

export function createSalesforceAdapter(options: {
  config: SalesforceConfig;
  connection: CrmConnectionRef;
  accessToken: AccessTokenSource;
  budget: CrmCallBudget;
  fieldKeys: OwnFieldKeyStore;
  /** Which records are prospects: Contacts or Leads (a product setting). */
  object?: SalesforceObject;
  retry?: Partial<RetryPolicy>;
  sleep?: (ms: number) => Promise<void>;
  fetchFn?: typeof fetch;
}): CrmAdapter {
  const { config, connection } = options;
  const object = options.object ?? 'Contact';
  if (!connection.apiBase) throw new CrmRejected(400, 'A Salesforce connection needs its instance URL');
  const apiBase = connection.apiBase.replace(/\/+$/, '');
  const rest = createSalesforceRest({
    apiBase, apiVersion: config.apiVersion, accessToken: options.accessToken, budget: options.budget, limits: config.limits, retry: options.retry, sleep: options.sleep, fetchFn: options.fetchFn,
  });
  let describeCache: Promise<DescribeField[]> | null = null;

  const describe = (fresh = false): Promise<DescribeField[]> => {
    if (fresh || !describeCache) {
      describeCache = rest.call<{ fields: DescribeField[] }>({ method: 'GET', path: `/sobjects/${object}/describe` }).then((reply) => reply.fields);
      describeCache.catch(() => void (describeCache = null));
    }
    return describeCache;
  };

  const query = <R>(soql: string) => rest.call<QueryReply<R>>({ method: 'GET', path: `/query?q=${encodeURIComponent(soql)}`, headers: { 'Sforce-Query-Options': `batchSize=${QUERY_BATCH}` } });
  async function queryAll<R>(soql: string): Promise<R[]> {
    let page = await query<R>(soql);
    const records = [...page.records];
    while (page.nextRecordsUrl) {
      page = await rest.call<QueryReply<R>>({ method: 'GET', path: page.nextRecordsUrl });
      records.push(...page.records);
    }
    return records;
  }

  /** One sObject Collections call; each record's SaveResult, in order. */
  const collection = (method: 'POST' | 'PATCH', records: Array<Record<string, unknown>>, isRepeatable: boolean) =>
    rest.call<SaveResult[]>({ method, path: '/composite/sobjects', body: { allOrNone: false, records }, isRepeatable });

  const reasonOf = (result: SaveResult | undefined) =>
    result?.errors?.map((error) => `${error.statusCode}: ${error.message}`).join('; ') || 'Salesforce answered without a result for it';

  const name = (text: string) => {
    if (!NAME.test(text)) throw new CrmRejected(400, `Not a Salesforce field name: ${text}`);
    return text;
  };
  const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  /** A dateTime literal: `2024-05-01T10:00:00Z` (no quotes, no milliseconds). */
  const dateTime = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

  function contactOf(productId: number, record: Record<string, unknown>, scoreField: string | null, mapped: string[]): CrmContact {
    const score = scoreField ? record[scoreField] : null;
    return {
      id: String(record.Id),
      email: typeof record.Email === 'string' && record.Email !== '' ? record.Email : null,
      name: typeof record.Name === 'string' && record.Name !== '' ? record.Name : null,
      score: typeof score === 'number' ? score : score === null || score === undefined ? null : Number(score),
      own: fromSalesforce(productId, record),
      mapped: Object.fromEntries(mapped.map((field) => [field, record[field] === null || record[field] === undefined ? null : String(record[field])])),
    };
  }

  const selectList = (productId: number, extra: string[], own = ownFieldNames(productId)) => [...new Set(['Id', 'Email', 'Name', ...extra.map(name), ...own])].join(', ');

  /** Grants our fields to the connected user through one permission set per product (field-level security). */
  async function grantFields(product: { id: number }): Promise<void> {
    const user = await rest.call<{ user_id: string }>({ method: 'GET', path: '/services/oauth2/userinfo' });
    const setName = `Pe_${product.id}_Prospect_Enrichment`;
    const findSet = async () => (await query<{ Id: string }>(`SELECT Id FROM PermissionSet WHERE Name = ${quote(setName)}`)).records[0]?.Id ?? null;
    let setId = await findSet();
    if (!setId) {
      const [created] = await collection('POST', [{ attributes: { type: 'PermissionSet' }, Name: setName, Label: setName.replace(/_/g, ' '), Description: 'Prospect enrichment fields' }], true);
      if (!created?.success && !created?.errors?.some((error) => error.statusCode === 'DUPLICATE_VALUE')) throw refusal(created);
      setId = created?.id ?? (await findSet());
      if (!setId) throw new CrmRejected(409, 'The permission set vanished after it was created');
    }
    const granted = new Set((await queryAll<{ Field: string }>(`SELECT Id, Field FROM FieldPermissions WHERE ParentId = ${quote(setId)}`)).map((each) => each.Field));
    const missing = ownFieldNames(product.id).map((field) => `${object}.${field}`).filter((field) => !granted.has(field));
    if (missing.length > 0) {
      const results = await collection('POST', missing.map((field) => ({ attributes: { type: 'FieldPermissions' }, ParentId: setId, SobjectType: object, Field: field, PermissionsRead: true, PermissionsEdit: true })), true);
      const failed = results.find((result) => !result.success && !result.errors?.some((error) => error.statusCode === 'DUPLICATE_VALUE'));
      if (failed) throw refusal(failed);
    }
    const assigned = await query<{ Id: string }>(`SELECT Id FROM PermissionSetAssignment WHERE PermissionSetId = ${quote(setId)} AND AssigneeId = ${quote(user.user_id)}`);
    if (assigned.records.length === 0) {
      const [result] = await collection('POST', [{ attributes: { type: 'PermissionSetAssignment' }, PermissionSetId: setId, AssigneeId: user.user_id }], true);
      if (!result?.success && !result?.errors?.some((error) => error.statusCode === 'DUPLICATE_VALUE')) throw refusal(result);
    }
  }

  const refusal = (result: SaveResult | undefined) => new SalesforceRejected(400, result?.errors?.[0]?.statusCode ?? 'UNKNOWN', result?.errors?.[0]?.message ?? 'refused');
  const isRightsRefusal = (error: unknown) => error instanceof SalesforceRejected && (REFUSED_RIGHTS.has(error.errorCode) || error.status === 403);

  return {
    provider: 'salesforce',
    portalId: connection.portalId,
    maxBatch: MAX_RECORDS,

    async fieldMetadata() {
      const fields = await describe(true);
      return { scoreFields: scoreFieldsOf(fields), mappableFields: mappableFieldsOf(fields) };
    },

    // The API creates the fields (Tooling API) and grants them to the
    // connected user (a permission set): both need admin rights many
    // integration users have. Without them nothing is half made for the
    // admin to untangle: the steps say how to make the same fields by hand.
    async ensureOwnFields(product): Promise<OwnFieldsState> {
      const definitions = ownFieldDefinitions(product);
      const isReady = (fields: DescribeField[]) => definitions.every((definition) => fields.some((field) => field.name === definition.name && field.updateable !== false));
      const before = await describe(true);
      if (isReady(before)) return { ready: true };
      try {
        for (const definition of definitions) {
          if (before.some((field) => field.name === definition.name)) continue;
          try {
            await rest.call({ method: 'POST', path: '/tooling/sobjects/CustomField', body: { FullName: `${object}.${definition.name}`, Metadata: definition.metadata } });
          } catch (error) {
            // Made by another process meanwhile, or made before and not yet granted.
            if (!(error instanceof SalesforceRejected && error.errorCode === 'DUPLICATE_DEVELOPER_NAME')) throw error;
          }
        }
        await grantFields(product);
      } catch (error) {
        if (isRightsRefusal(error)) return { ready: false, steps: adminSteps(object, product, null) };
        throw error;
      }
      return isReady(await describe(true)) ? { ready: true } : { ready: false, steps: adminSteps(object, product, null) };
    },

    async findCandidates(candidates, cursor) {
      const scoreField = name(candidates.scoreField);
      let page: QueryReply<Record<string, unknown>>;
      if (cursor !== null) {
        if (!cursor.startsWith('/services/data/')) throw new CrmRejected(400, 'Not a Salesforce query cursor');
        page = await rest.call({ method: 'GET', path: cursor, headers: { 'Sforce-Query-Options': `batchSize=${QUERY_BATCH}` } });
      } else {
        // Before the product's fields exist (a preview before the first run) a query naming them is refused,
        // and nobody can be completed: the score alone decides.
        const existing = new Set((await describe()).map((field) => field.name));
        const own = ownFieldNames(candidates.productId).filter((field) => existing.has(field));
        const status = ownFieldName(candidates.productId, 'status');
        const enrichedAt = ownFieldName(candidates.productId, 'enriched_at');
        // `!=` matches empty statuses too (SOQL compares null as a value).
        const due = !existing.has(status) || !existing.has(enrichedAt)
          ? ''
          : candidates.reEnrichBefore
            ? ` AND (${status} != 'completed' OR (${status} = 'completed' AND ${enrichedAt} < ${dateTime(candidates.reEnrichBefore)}))`
            : ` AND ${status} != 'completed'`;
        const minimum = Number.isFinite(candidates.minScore) ? candidates.minScore : 0;
        // A converted Lead is never written again (CANNOT_UPDATE_CONVERTED_LEAD) but stays queryable: left out
        // here, it costs no research, and leaves its place in the run's limit to a Lead we can write.
        const writable = object === 'Lead' ? ' AND IsConverted = false' : '';
        page = await query(`SELECT ${selectList(candidates.productId, [scoreField, ...candidates.mapped], own)} FROM ${object} WHERE ${scoreField} >= ${minimum}${writable}${due} ORDER BY ${scoreField} DESC, Id ASC`);
      }
      return { contacts: page.records.map((record) => contactOf(candidates.productId, record, scoreField, candidates.mapped)), next: page.nextRecordsUrl ?? null };
    },

    async readContacts(productId, contactIds, mapped) {
      const found = new Map<string, CrmContact>();
      const ids = [...new Set(contactIds)].filter((id) => RECORD_ID.test(id));
      for (let start = 0; start < ids.length; start += MAX_RECORDS) {
        const batch = ids.slice(start, start + MAX_RECORDS);
        const records = await queryAll<Record<string, unknown>>(`SELECT ${selectList(productId, mapped)} FROM ${object} WHERE Id IN (${batch.map(quote).join(', ')})`);
        for (const record of records) found.set(String(record.Id), contactOf(productId, record, null, mapped));
      }
      // Ids are 15 characters (case-sensitive) or 18; answer under the id asked for.
      for (const id of ids) {
        if (found.has(id)) continue;
        const match = [...found.values()].find((contact) => contact.id.slice(0, 15) === id.slice(0, 15));
        if (match) found.set(id, { ...match, id });
      }
      return found;
    },

    async updateContacts(productId, inputs) {
      const outcomes: BatchOutcomes<true> = { done: new Map(), refused: new Map(), refusedForGood: new Set() };
      const numeric = inputs.some((input) => Object.keys(input.mapped).length > 0)
        ? new Set((await describe()).filter((field) => ['double', 'int', 'percent', 'currency'].includes(field.type)).map((field) => field.name))
        : new Set<string>();
      for (let start = 0; start < inputs.length; start += MAX_RECORDS) {
        const batch = inputs.slice(start, start + MAX_RECORDS);
        const records = batch.map((input) => ({
          attributes: { type: object }, id: input.id,
          ...Object.fromEntries(Object.entries(input.mapped).map(([field, value]) => [name(field), numeric.has(field) ? Number(value) : value])),
          ...toSalesforce(productId, input.own),
        }));
        const results = await collection('PATCH', records, true);
        batch.forEach((input, index) => {
          const result = results[index];
          if (result?.success) return void outcomes.done.set(input.id, true);
          outcomes.refused.set(input.id, reasonOf(result));
          if (result?.errors?.some((error) => REFUSED_FOR_GOOD.has(error.statusCode))) outcomes.refusedForGood!.add(input.id);
        });
      }
      return outcomes;
    },

    async createNotes(inputs) {
      const outcomes: BatchOutcomes<string> = { done: new Map(), refused: new Map() };
      for (let start = 0; start < inputs.length; start += MAX_RECORDS) {
        const batch = inputs.slice(start, start + MAX_RECORDS);
        const notes = await collection('POST', batch.map((input) => ({ attributes: { type: 'ContentNote' }, Title: titleOf(input.html), Content: Buffer.from(normaliseNote(input.html), 'utf8').toString('base64') })), false);
        const made: Array<{ key: string; contactId: string; noteId: string }> = [];
        batch.forEach((input, index) => {
          const result = notes[index];
          if (result?.success && result.id) made.push({ key: input.key, contactId: input.contactId, noteId: result.id });
          else outcomes.refused.set(input.key, reasonOf(result));
        });
        if (made.length === 0) continue;
        // A ContentNote's id is its ContentDocument's id.
        const links = await collection('POST', made.map((note) => ({ attributes: { type: 'ContentDocumentLink' }, ContentDocumentId: note.noteId, LinkedEntityId: note.contactId, ShareType: 'V' })), true);
        made.forEach((note, index) => {
          const result = links[index];
          const isLinked = result?.success || result?.errors?.some((error) => error.statusCode === 'DUPLICATE_VALUE');
          if (isLinked) outcomes.done.set(note.key, note.noteId);
          else outcomes.refused.set(note.key, `the note ${note.noteId} was made but not linked: ${reasonOf(result)}`);
        });
      }
      return outcomes;
    },

    // The notes the connected user made since `since`, matched by body: those
    // linked to a wanted record, and those an earlier try made but did not get
    // to link (its answer lost), which are linked now rather than made again.
    async findNotes(inputs, since) {
      const found = new Map<string, string>();
      const wanted = new Map(inputs.filter((input) => RECORD_ID.test(input.contactId)).map((input) => [input.contactId, normaliseNote(input.html)]));
      if (wanted.size === 0) return found;
      const user = await rest.call<{ user_id: string }>({ method: 'GET', path: '/services/oauth2/userinfo' });
      const notes = await queryAll<{ Id: string }>(`SELECT Id FROM ContentNote WHERE OwnerId = ${quote(user.user_id)} AND CreatedDate >= ${dateTime(since)} ORDER BY CreatedDate ASC`);
      for (let start = 0; start < notes.length; start += MAX_RECORDS) {
        const batch = notes.slice(start, start + MAX_RECORDS).map((note) => note.Id);
        const links = await queryAll<{ ContentDocumentId: string; LinkedEntityId: string }>(`SELECT Id, ContentDocumentId, LinkedEntityId FROM ContentDocumentLink WHERE ContentDocumentId IN (${batch.map(quote).join(', ')})`);
        for (const noteId of batch) {
          const records = links.filter((link) => link.ContentDocumentId === noteId && RECORD_PREFIXES.some((prefix) => link.LinkedEntityId.startsWith(prefix))).map((link) => link.LinkedEntityId);
          const owners = records.filter((id) => wanted.has(id) && !found.has(id));
          if (records.length > 0 && owners.length === 0) continue;
          // A base64 field is read on its own (sObject Blob Retrieve).
          const body = normaliseNote(await rest.call<string>({ method: 'GET', path: `/sobjects/ContentNote/${noteId}/Content`, isText: true }));
          if (records.length > 0) {
            for (const id of owners) if (wanted.get(id) === body) found.set(id, noteId);
            continue;
          }
          const orphanOf = [...wanted].find(([id, html]) => html === body && !found.has(id))?.[0];
          if (!orphanOf) continue;
          const [link] = await collection('POST', [{ attributes: { type: 'ContentDocumentLink' }, ContentDocumentId: noteId, LinkedEntityId: orphanOf, ShareType: 'V' }], true);
          if (link?.success || link?.errors?.some((error) => error.statusCode === 'DUPLICATE_VALUE')) found.set(orphanOf, noteId);
        }
      }
      return found;
    },

    contactUrl: (contactId) => salesforceRecordUrl(apiBase, object, contactId),
  };
}

/** Salesforce strips new lines from a note's HTML; compared and sent the same way. */
export const normaliseNote = (html: string) => html.replace(/\r?\n|\r/g, '');

/** The note's title: its heading's text, or a plain one. */
function titleOf(html: string): string {
  const heading = /<h\d[^>]*>(.*?)<\/h\d>/is.exec(html)?.[1];
  const text = heading
    ?.replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .trim();
  return (text || 'Prospect research').slice(0, 255);
}
