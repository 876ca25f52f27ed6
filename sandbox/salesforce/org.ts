// The state of the Salesforce stand-in: one org, its API user, the objects a
// sync touches with their fields as describe answers them, records, and the
// OAuth codes and tokens that reach it. Field properties follow the describe
// result of the REST API Developer Guide ("sObject Describe",
// developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm)
// and the Object Reference (Contact, Lead, ContentNote, ContentDocumentLink,
// PermissionSet, FieldPermissions, PermissionSetAssignment). Ids are 18
// characters with each object's documented key prefix (003 Contact, 00Q Lead,
// 069 ContentDocument/ContentNote, 06A ContentDocumentLink, 0PS PermissionSet,
// 01k FieldPermissions, 0Pa PermissionSetAssignment, 00N CustomField, 00D org, 005 user).
import { randomBytes } from 'node:crypto';
import type { World } from '../provider-world/world.ts';

export type FieldType =
  | 'id' | 'string' | 'email' | 'textarea' | 'double' | 'int' | 'percent' | 'currency' | 'picklist' | 'datetime' | 'reference' | 'boolean' | 'base64';

export interface Field {
  name: string;
  label: string;
  type: FieldType;
  length: number;
  custom: boolean;
  filterable: boolean;
  sortable: boolean;
  createable: boolean;
  updateable: boolean;
  calculated: boolean;
  unique: boolean;
  externalId: boolean;
  nillable: boolean;
  /** Set for parts of a compound field (MailingLatitude → MailingAddress). */
  compoundFieldName: string | null;
  /** `richtextarea`, `plaintextarea` for text areas. */
  extraTypeInfo: string | null;
  picklistValues: Array<{ value: string; label: string; active: boolean; defaultValue: boolean }>;
  /** Restricted picklists refuse values outside their list. */
  restrictedPicklist: boolean;
  /** Created through the Tooling API: seen only by users granted it (field-level security). */
  needsGrant: boolean;
}

export type SObjectRecord = Record<string, unknown> & { Id: string; CreatedDate: string; LastModifiedDate: string };

export interface SObjectType {
  name: string;
  label: string;
  keyPrefix: string;
  fields: Map<string, Field>;
  records: Map<string, SObjectRecord>;
}

export interface Org {
  orgId: string;
  userId: string;
  username: string;
  displayName: string;
  objects: Map<string, SObjectType>;
  /** The notes' bodies as stored (after Salesforce's normalisation), by ContentNote id. */
  noteContent: Map<string, string>;
  nextId: number;
}

export interface AuthCode {
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  expiresAt: number;
  used: boolean;
}

export interface RefreshToken {
  token: string;
  scopes: string[];
  revoked: boolean;
}

export interface AccessToken {
  token: string;
  scopes: string[];
  refreshToken: string | null;
  expiresAt: number;
  revoked: boolean;
}

export const SEED_ORG_ID = '00D5g0000SANDBXEAQ';
export const SEED_USER_ID = '0055g0000APIUSRAAQ';

const field = (name: string, label: string, type: FieldType, extra: Partial<Field> = {}): Field => ({
  name, label, type, length: type === 'string' || type === 'email' ? 255 : type === 'textarea' ? 32_000 : 0,
  custom: name.endsWith('__c'), filterable: true, sortable: true, createable: true, updateable: true, calculated: false, unique: false, externalId: false, nillable: true,
  compoundFieldName: null, extraTypeInfo: null, picklistValues: [], restrictedPicklist: false, needsGrant: false, ...extra,
});

const readOnly = { createable: false, updateable: false };
/** Long text areas are neither filterable nor sortable (SOQL: "any field except a long text area field, encrypted data field, or base64-encoded field"). */
const longText = { filterable: false, sortable: false, extraTypeInfo: 'plaintextarea' };

const systemFields = () => [
  field('Id', 'Record ID', 'id', { ...readOnly, nillable: false, length: 18 }),
  field('CreatedDate', 'Created Date', 'datetime', readOnly),
  field('LastModifiedDate', 'Last Modified Date', 'datetime', readOnly),
  field('OwnerId', 'Owner ID', 'reference', { length: 18 }),
];

/** The person fields Contact and Lead share, and each one's own kinds of number: scores, a formula, counts and coordinates that are not. */
function personFields(object: 'Contact' | 'Lead'): Field[] {
  const common = [
    ...systemFields(),
    field('FirstName', 'First Name', 'string', { length: 40 }),
    field('LastName', 'Last Name', 'string', { length: 80, nillable: false }),
    field('Name', 'Full Name', 'string', { ...readOnly, length: 121 }),
    field('Email', 'Email', 'email', { length: 80 }),
    field('Title', 'Title', 'string', { length: 128 }),
    field('Description', object === 'Contact' ? 'Contact Description' : 'Description', 'textarea', longText),
    field('Lead_Score__c', 'Lead Score', 'double', { length: 0 }),
    field('Engagement__c', 'Engagement', 'percent'),
    field('Score_Formula__c', 'Score (formula)', 'double', { ...readOnly, calculated: true }),
    field('Rich_Notes__c', 'Rich Notes', 'textarea', { ...longText, extraTypeInfo: 'richtextarea' }),
    field('External_Key__c', 'External Key', 'string', { unique: true, externalId: true }),
    field('Industry_Text__c', 'Industry (text)', 'string', { length: 255 }),
    field('Employees__c', 'Employees', 'double'),
  ];
  if (object === 'Contact') {
    return [
      ...common,
      field('AccountId', 'Account ID', 'reference', { length: 18 }),
      field('Department', 'Department', 'string', { length: 80 }),
      field('MailingLatitude', 'Mailing Latitude', 'double', { compoundFieldName: 'MailingAddress' }),
    ];
  }
  return [
    ...common,
    field('Company', 'Company', 'string', { length: 255, nillable: false }),
    field('NumberOfEmployees', 'Employees', 'int'),
    field('AnnualRevenue', 'Annual Revenue', 'currency'),
    // Lead: "IsConverted … Create, Defaulted on create, Filter, Group, Sort" (Object Reference, Lead,
    // developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_lead.htm):
    // set by convertLead(), never by an update; a converted Lead stays queryable.
    field('IsConverted', 'Converted', 'boolean', { updateable: false, nillable: false }),
    field('Status', 'Status', 'picklist', {
      length: 255, restrictedPicklist: true,
      picklistValues: ['Open - Not Contacted', 'Working - Contacted', 'Closed - Converted'].map((value, index) => ({ value, label: value, active: true, defaultValue: index === 0 })),
    }),
  ];
}

function objectType(name: string, label: string, keyPrefix: string, fields: Field[]): SObjectType {
  return { name, label, keyPrefix, fields: new Map(fields.map((each) => [each.name, each])), records: new Map() };
}

export function newOrg(orgId: string, userId: string, username: string): Org {
  const objects = [
    objectType('Contact', 'Contact', '003', personFields('Contact')),
    objectType('Lead', 'Lead', '00Q', personFields('Lead')),
    objectType('ContentNote', 'Note', '069', [
      ...systemFields(),
      field('Title', 'Title', 'string', { nillable: false }),
      field('Content', 'Content', 'base64', { filterable: false, sortable: false }),
      field('FileType', 'File Type', 'string', readOnly),
      field('TextPreview', 'Text Preview', 'string', readOnly),
    ]),
    objectType('ContentDocumentLink', 'Content Document Link', '06A', [
      field('Id', 'ContentDocumentLink ID', 'id', { ...readOnly, length: 18 }),
      field('ContentDocumentId', 'Content Document ID', 'reference', { length: 18, updateable: false }),
      field('LinkedEntityId', 'Linked Entity ID', 'reference', { length: 18, updateable: false }),
      field('ShareType', 'Share Type', 'picklist', {
        restrictedPicklist: true, picklistValues: ['V', 'C', 'I'].map((value) => ({ value, label: value, active: true, defaultValue: false })),
      }),
      field('Visibility', 'Visibility', 'picklist', {
        restrictedPicklist: true, picklistValues: ['AllUsers', 'InternalUsers', 'SharedUsers'].map((value) => ({ value, label: value, active: true, defaultValue: false })),
      }),
      field('CreatedDate', 'Created Date', 'datetime', readOnly),
      field('LastModifiedDate', 'Last Modified Date', 'datetime', readOnly),
    ]),
    objectType('PermissionSet', 'Permission Set', '0PS', [...systemFields(), field('Name', 'Name', 'string', { length: 80 }), field('Label', 'Label', 'string', { length: 80 }), field('Description', 'Description', 'string')]),
    objectType('FieldPermissions', 'Field Permissions', '01k', [
      ...systemFields(),
      field('ParentId', 'Parent ID', 'reference', { length: 18 }),
      field('SobjectType', 'Sobject Type', 'string'),
      field('Field', 'Field Name', 'string'),
      field('PermissionsRead', 'Read Access', 'boolean'),
      field('PermissionsEdit', 'Edit Access', 'boolean'),
    ]),
    objectType('PermissionSetAssignment', 'Permission Set Assignment', '0Pa', [
      ...systemFields(),
      field('AssigneeId', 'Assignee ID', 'reference', { length: 18 }),
      field('PermissionSetId', 'Permission Set ID', 'reference', { length: 18 }),
    ]),
  ];
  return { orgId, userId, username, displayName: 'Sandbox API User', objects: new Map(objects.map((each) => [each.name, each])), noteContent: new Map(), nextId: 1 };
}

/** An 18-character id with the object's key prefix. */
export function newId(org: Org, keyPrefix: string): string {
  const serial = String(org.nextId++).padStart(9, '0');
  return `${keyPrefix}5g0${serial}AAQ`;
}

/** Salesforce's dateTime format in answers: `2024-05-01T10:00:00.000+0000`. */
export const sfDateTime = (at: Date) => at.toISOString().replace('Z', '+0000');

export function addRecord(org: Org, objectName: string, values: Record<string, unknown>, now: Date): SObjectRecord {
  const object = org.objects.get(objectName)!;
  const at = sfDateTime(now);
  const record: SObjectRecord = { ...values, Id: newId(org, object.keyPrefix), CreatedDate: at, LastModifiedDate: at, OwnerId: org.userId };
  if (object.fields.has('Name') && (objectName === 'Contact' || objectName === 'Lead')) record.Name = [values.FirstName, values.LastName].filter(Boolean).join(' ');
  if (objectName === 'Lead') record.IsConverted = values.IsConverted === true;
  object.records.set(record.Id, record);
  return record;
}

export interface SeedPerson {
  FirstName?: string;
  LastName: string;
  Email?: string | null;
  Title?: string;
  Company?: string;
  Lead_Score__c?: number | null;
  [field: string]: string | number | null | undefined;
}

/**
 * The seeded org: people of the provider world as Contacts and as Leads
 * (their work e-mails, so that research finds them), Lead Score spread from
 * 99 down, and what a real org holds besides: free-mail and role addresses
 * above the threshold, a contact without e-mail, one without a score, the
 * top Lead converted.
 */
export function seedOrg(world: World, now: Date, options: { people?: number } = {}): Org {
  const org = newOrg(SEED_ORG_ID, SEED_USER_ID, 'api.user@sandbox-org.example');
  const people = world.samplePeople({ knownTo: 'both' }, options.people ?? 40);
  for (const [index, person] of people.entries()) {
    const company = world.companies[person.company]!;
    const score = Math.max(5, 99 - index * 2);
    const values = { FirstName: person.firstName, LastName: person.lastName, Email: person.email, Title: person.title, Lead_Score__c: score };
    addRecord(org, 'Contact', values, now);
    // The top Lead was converted (into the Contact beside it), as an org's best Leads often are: still
    // queryable with its score, never writable again.
    const converted = index === 0 ? { IsConverted: true, Status: 'Closed - Converted' } : { Status: 'Open - Not Contacted' };
    addRecord(org, 'Lead', { ...values, Company: company.name, ...converted }, now);
  }
  const special = world.companies[people[0]?.company ?? 0]!;
  const extras: SeedPerson[] = [
    { FirstName: 'Jamie', LastName: 'Rivera', Email: 'jamie.rivera@gmail.com', Lead_Score__c: 98 },
    { LastName: 'Info', Email: `info@${special.domain}`, Lead_Score__c: 96 },
    { FirstName: 'Noemail', LastName: 'Person', Email: null, Lead_Score__c: 97 },
    { FirstName: 'Without', LastName: 'Score', Email: `no.score.${special.index}@${special.domain}` },
  ];
  for (const extra of extras) addRecord(org, 'Contact', extra, now);
  return org;
}

export const newSecret = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;
