// Record writes as Salesforce checks them, each record answered on its own
// as sObject Collections does (REST API Developer Guide, "Create Records
// Using sObject Collections" and "Update Records Using sObject Collections":
// developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_create.htm,
// …_update.htm): a SaveResult { id, success, errors: [{ statusCode, message, fields }] }
// per record, in order. Field rules from the Object Reference:
// - ContentNote (…/object_reference/sforce_api_objects_contentnote.htm): Title
//   required; Content base64 of HTML or escaped plain text ("Any special
//   characters within plain text in the Content field must be escaped …
//   If the input contains unsafe HTML characters or new lines, we
//   automatically strip them out before saving the content"); its Id is the
//   ContentDocument's (069…).
// - ContentDocumentLink (…/sforce_api_objects_contentdocumentlink.htm):
//   ContentDocumentId, LinkedEntityId and ShareType (V, C, I) required; one
//   link per document and record.
// - PermissionSet, FieldPermissions, PermissionSetAssignment: field-level
//   security is granted by a permission set's FieldPermissions assigned to
//   the user; a custom field nobody was granted is invisible to the API.
import { addRecord, newId, sfDateTime, type Field, type Org, type SObjectRecord, type SObjectType } from './org.ts';

export interface SaveResult {
  id?: string;
  success: boolean;
  errors: Array<{ statusCode: string; message: string; fields: string[] }>;
}

export class RecordError extends Error {
  readonly statusCode: string;
  readonly fields: string[];
  constructor(statusCode: string, message: string, fields: string[] = []) {
    super(message);
    this.statusCode = statusCode;
    this.fields = fields;
  }
}

const ID = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;
const NUMERIC = new Set(['double', 'int', 'percent', 'currency']);

/** Whether the API user sees the field: fields created through the Tooling API need a FieldPermissions grant through an assigned permission set. */
export function isVisible(org: Org, object: SObjectType, field: Field, access: 'read' | 'edit' = 'read'): boolean {
  if (!field.needsGrant) return true;
  const assigned = new Set([...org.objects.get('PermissionSetAssignment')!.records.values()].filter((each) => each.AssigneeId === org.userId).map((each) => each.PermissionSetId));
  return [...org.objects.get('FieldPermissions')!.records.values()].some(
    (grant) => assigned.has(grant.ParentId) && grant.Field === `${object.name}.${field.name}` && (access === 'read' ? grant.PermissionsRead === true : grant.PermissionsEdit === true),
  );
}

export function fieldOf(org: Org, object: SObjectType, name: string): Field | undefined {
  const field = [...object.fields.values()].find((each) => each.name.toLowerCase() === name.toLowerCase());
  return field && isVisible(org, object, field) ? field : undefined;
}

/** A value checked and converted for storage; throws a RecordError as Salesforce words it. */
function coerce(field: Field, value: unknown): unknown {
  if (value === null) {
    if (!field.nillable) throw new RecordError('REQUIRED_FIELD_MISSING', `Required fields are missing: [${field.name}]`, [field.name]);
    return null;
  }
  if (NUMERIC.has(field.type)) {
    const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
    if (!Number.isFinite(number) || (field.type === 'int' && !Number.isInteger(number))) {
      throw new RecordError('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.label}: value not of required type: ${String(value)}`, [field.name]);
    }
    return number;
  }
  if (field.type === 'boolean') {
    if (typeof value !== 'boolean') throw new RecordError('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.label}: value not of required type: ${String(value)}`, [field.name]);
    return value;
  }
  if (field.type === 'datetime') {
    const at = typeof value === 'string' ? Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')) : Number.NaN;
    if (!Number.isFinite(at)) throw new RecordError('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.label}: value not of required type: ${String(value)}`, [field.name]);
    return sfDateTime(new Date(at));
  }
  if (typeof value !== 'string') throw new RecordError('INVALID_TYPE_ON_FIELD_IN_RECORD', `${field.label}: value not of required type: ${JSON.stringify(value)}`, [field.name]);
  if (field.type === 'picklist' && field.restrictedPicklist && !field.picklistValues.some((option) => option.value === value)) {
    throw new RecordError('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST', `${field.label}: bad value for restricted picklist field: ${value}`, [field.name]);
  }
  if (field.type === 'email' && value !== '' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value)) {
    throw new RecordError('INVALID_EMAIL_ADDRESS', `${field.label}: invalid email address: ${value}`, [field.name]);
  }
  if (field.length > 0 && value.length > field.length) {
    throw new RecordError('STRING_TOO_LONG', `${field.label}: data value too large: ${value.slice(0, 20)}… (max length=${field.length})`, [field.name]);
  }
  return value;
}

/** Names a field the request names that the user cannot see: the whole request is refused, as Salesforce refuses a body naming an unknown column. */
export function unknownField(org: Org, object: SObjectType, record: Record<string, unknown>): string | null {
  for (const key of Object.keys(record)) {
    if (key === 'attributes' || key.toLowerCase() === 'id') continue;
    if (!fieldOf(org, object, key)) return key;
  }
  return null;
}

const ALLOWED_TAGS = new Set(['p', 'br', 'b', 'strong', 'i', 'em', 'u', 's', 'strike', 'ul', 'ol', 'li', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'span', 'div', 'blockquote', 'pre', 'code']);

/**
 * A note body as Salesforce saves it: new lines and unsafe HTML (scripts,
 * event handlers) stripped; refused when it holds tags a note cannot hold or
 * characters left unescaped (`&` outside an entity, `<` outside a tag).
 */
export function normaliseNote(html: string): string {
  const stripped = html
    .replace(/\r?\n|\r/g, '')
    .replace(/<script\b[^>]*>.*?<\/script>/gis, '')
    .replace(/\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, '');
  const tagless = stripped.replace(/<\/?([a-zA-Z][a-zA-Z0-9]*)\b[^<>]*>/g, (tag, name: string) => {
    if (!ALLOWED_TAGS.has(name.toLowerCase())) throw new RecordError('FIELD_INTEGRITY_EXCEPTION', "Note can't be saved because it contains HTML tags or unescaped characters that are not allowed in a Note.", ['Content']);
    return '';
  });
  if (/[<>]/.test(tagless) || /&(?!(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);)/.test(tagless)) {
    throw new RecordError('FIELD_INTEGRITY_EXCEPTION', "Note can't be saved because it contains HTML tags or unescaped characters that are not allowed in a Note.", ['Content']);
  }
  return stripped;
}

const textOf = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();

/** Creates one record of a collection; its SaveResult. */
export function createOne(org: Org, object: SObjectType, input: Record<string, unknown>, options: { lacksFieldRights: boolean }, now: Date): SaveResult {
  try {
    const values: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(input)) {
      if (key === 'attributes') continue;
      const field = fieldOf(org, object, key)!;
      if (field.name === 'Id') throw new RecordError('INVALID_FIELD_FOR_INSERT_UPDATE', 'cannot specify Id in an insert call', ['Id']);
      if (!field.createable) throw new RecordError('INVALID_FIELD_FOR_INSERT_UPDATE', `Unable to create/update fields: ${field.name}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`, [field.name]);
      values[field.name] = field.type === 'base64' ? raw : coerce(field, raw);
    }
    const record = createChecked(org, object, values, options, now);
    return { id: record.Id, success: true, errors: [] };
  } catch (error) {
    if (!(error instanceof RecordError)) throw error;
    return { success: false, errors: [{ statusCode: error.statusCode, message: error.message, fields: error.fields }] };
  }
}

function required(values: Record<string, unknown>, names: string[]) {
  const missing = names.filter((name) => values[name] === undefined || values[name] === null || values[name] === '');
  if (missing.length > 0) throw new RecordError('REQUIRED_FIELD_MISSING', `Required fields are missing: [${missing.join(', ')}]`, missing);
}

function createChecked(org: Org, object: SObjectType, values: Record<string, unknown>, options: { lacksFieldRights: boolean }, now: Date): SObjectRecord {
  const records = (name: string) => [...org.objects.get(name)!.records.values()];
  switch (object.name) {
    case 'ContentNote': {
      required(values, ['Title']);
      const content = typeof values.Content === 'string' ? Buffer.from(values.Content, 'base64').toString('utf8') : '';
      const stored = normaliseNote(content);
      const id = newId(org, object.keyPrefix);
      const at = sfDateTime(now);
      const record: SObjectRecord = { Id: id, Title: values.Title, Content: null, FileType: 'SNOTE', TextPreview: textOf(stored).slice(0, 255), CreatedDate: at, LastModifiedDate: at, OwnerId: org.userId };
      object.records.set(id, record);
      org.noteContent.set(id, stored);
      return record;
    }
    case 'ContentDocumentLink': {
      required(values, ['ContentDocumentId', 'LinkedEntityId', 'ShareType']);
      if (!org.objects.get('ContentNote')!.records.has(String(values.ContentDocumentId))) throw new RecordError('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', ['ContentDocumentId']);
      const entity = String(values.LinkedEntityId);
      if (!org.objects.get('Contact')!.records.has(entity) && !org.objects.get('Lead')!.records.has(entity)) throw new RecordError('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', ['LinkedEntityId']);
      if (records('ContentDocumentLink').some((link) => link.ContentDocumentId === values.ContentDocumentId && link.LinkedEntityId === entity)) {
        throw new RecordError('DUPLICATE_VALUE', `Document with ID: ${String(values.ContentDocumentId)} is already linked with the entity with ID: ${entity}`);
      }
      const record = { ...values, Id: newId(org, object.keyPrefix), Visibility: values.Visibility ?? 'AllUsers', CreatedDate: sfDateTime(now), LastModifiedDate: sfDateTime(now) } as SObjectRecord;
      object.records.set(record.Id, record);
      return record;
    }
    case 'PermissionSet': {
      if (options.lacksFieldRights) throw new RecordError('INSUFFICIENT_ACCESS_OR_READONLY', 'insufficient access rights on object id');
      required(values, ['Name', 'Label']);
      if (!/^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*$/.test(String(values.Name))) throw new RecordError('FIELD_INTEGRITY_EXCEPTION', 'The API Name can only contain underscores and alphanumeric characters. It must be unique, begin with a letter, not include spaces, not end with an underscore, and not contain two consecutive underscores.', ['Name']);
      const taken = records('PermissionSet').find((each) => String(each.Name).toLowerCase() === String(values.Name).toLowerCase());
      if (taken) throw new RecordError('DUPLICATE_VALUE', `duplicate value found: Name duplicates value on record with id: ${taken.Id}`, ['Name']);
      return addRecord(org, 'PermissionSet', values, now);
    }
    case 'FieldPermissions': {
      if (options.lacksFieldRights) throw new RecordError('INSUFFICIENT_ACCESS_OR_READONLY', 'insufficient access rights on object id');
      required(values, ['ParentId', 'SobjectType', 'Field']);
      if (!org.objects.get('PermissionSet')!.records.has(String(values.ParentId))) throw new RecordError('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id', ['ParentId']);
      const [objectName, fieldName] = String(values.Field).split('.');
      const target = org.objects.get(String(values.SobjectType));
      if (!target || objectName !== target.name || !target.fields.get(fieldName ?? '')) throw new RecordError('INVALID_FIELD', `Invalid field: ${String(values.Field)}`, ['Field']);
      if (values.PermissionsEdit === true && values.PermissionsRead !== true) throw new RecordError('FIELD_INTEGRITY_EXCEPTION', 'Permission Read is required when Edit is granted', ['PermissionsRead']);
      if (records('FieldPermissions').some((each) => each.ParentId === values.ParentId && each.Field === values.Field)) {
        throw new RecordError('DUPLICATE_VALUE', 'duplicate value found: <unknown> duplicates value on record with id: <unknown>');
      }
      return addRecord(org, 'FieldPermissions', values, now);
    }
    case 'PermissionSetAssignment': {
      if (options.lacksFieldRights) throw new RecordError('INSUFFICIENT_ACCESS_OR_READONLY', 'insufficient access rights on cross-reference id');
      required(values, ['AssigneeId', 'PermissionSetId']);
      if (values.AssigneeId !== org.userId || !org.objects.get('PermissionSet')!.records.has(String(values.PermissionSetId))) throw new RecordError('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id');
      if (records('PermissionSetAssignment').some((each) => each.AssigneeId === values.AssigneeId && each.PermissionSetId === values.PermissionSetId)) {
        throw new RecordError('DUPLICATE_VALUE', 'duplicate value found: <unknown> duplicates value on record with id: <unknown>');
      }
      return addRecord(org, 'PermissionSetAssignment', values, now);
    }
    default:
      required(values, object.name === 'Lead' ? ['LastName', 'Company'] : ['LastName']);
      return addRecord(org, object.name, values, now);
  }
}

/** Updates one record of a collection; its SaveResult. */
export function updateOne(org: Org, object: SObjectType, input: Record<string, unknown>, now: Date): SaveResult {
  const id = typeof input.id === 'string' ? input.id : typeof input.Id === 'string' ? input.Id : '';
  try {
    if (!ID.test(id)) throw new RecordError('MALFORMED_ID', `${object.label} ID: id value of incorrect type: ${id}`, ['Id']);
    const record = [...object.records.values()].find((each) => each.Id === id || each.Id.slice(0, 15) === id.slice(0, 15));
    if (!record) throw new RecordError('ENTITY_IS_DELETED', 'entity is deleted');
    // A converted Lead refuses every update, whatever it names ("CANNOT_UPDATE_CONVERTED_LEAD: cannot reference
    // converted lead"; Salesforce Help 000384333: after conversion only convertedAccountId or convertedContactId can be referenced).
    if (object.name === 'Lead' && record.IsConverted === true) throw new RecordError('CANNOT_UPDATE_CONVERTED_LEAD', 'cannot reference converted lead');
    const changes: Record<string, unknown> = {};
    for (const [key, raw] of Object.entries(input)) {
      if (key === 'attributes' || key.toLowerCase() === 'id') continue;
      const field = fieldOf(org, object, key)!;
      if (!field.updateable || !isVisible(org, object, field, 'edit')) {
        throw new RecordError('INVALID_FIELD_FOR_INSERT_UPDATE', `Unable to create/update fields: ${field.name}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`, [field.name]);
      }
      changes[field.name] = coerce(field, raw);
    }
    Object.assign(record, changes, { LastModifiedDate: sfDateTime(now) });
    return { id: record.Id, success: true, errors: [] };
  } catch (error) {
    if (!(error instanceof RecordError)) throw error;
    return { ...(id ? { id } : {}), success: false, errors: [{ statusCode: error.statusCode, message: error.message, fields: error.fields }] };
  }
}
