// Our fields on a Contact or Lead as Salesforce custom fields
// (docs/crm-salesforce.md#what-the-app-creates): `Pe_<product id>_<Field>__c`,
// status a restricted picklist, the texts Long Text Areas (not filterable:
// runs filter on the status picklist, never on a text), industry and
// employees Text (255), Enriched At a Date/Time. Values cross the adapter
// as plain strings; Salesforce answers dateTimes as `2024-05-01T10:00:00.000+0000`.
import { CRM_FIELDS, CRM_STATUS_VALUES, type CrmField } from '../../domain/crm/fields.ts';
import type { OwnValues } from '../crm/adapter.ts';

const API_NAMES: Record<CrmField, string> = {
  status: 'Status', prospect_summary: 'Prospect_Summary', opening_talk: 'Opening_Talk', synergy_points: 'Synergy_Points', discovery_questions: 'Discovery_Questions',
  company_news: 'Company_News', company_industry: 'Company_Industry', company_employees: 'Company_Employees', enriched_at: 'Enriched_At',
};

/** Long Text Area length we create (Salesforce allows 256 to 131,072). */
export const LONG_TEXT_LENGTH = 32_768;
const TEXT_LENGTH = 255;
const LONG_TEXT_LINES = 5;

export const ownFieldName = (productId: number, field: CrmField) => `Pe_${productId}_${API_NAMES[field]}__c`;
export const ownFieldNames = (productId: number) => CRM_FIELDS.map(({ field }) => ownFieldName(productId, field));
export const isOwnFieldName = (name: string) => /^Pe_\d+_[A-Za-z_]+__c$/.test(name);

export type SalesforceFieldType = 'Picklist' | 'LongTextArea' | 'Text' | 'DateTime';

export interface OwnFieldDefinition {
  field: CrmField;
  name: string;
  label: string;
  type: SalesforceFieldType;
  /** The Tooling API's Metadata for POST /tooling/sobjects/CustomField. */
  metadata: Record<string, unknown>;
}

const typeOf = (field: CrmField): SalesforceFieldType =>
  field === 'status' ? 'Picklist' : field === 'enriched_at' ? 'DateTime' : field === 'company_industry' || field === 'company_employees' ? 'Text' : 'LongTextArea';

export function ownFieldDefinitions(product: { id: number; name: string }): OwnFieldDefinition[] {
  return CRM_FIELDS.map(({ field, label: baseLabel }) => {
    const type = typeOf(field);
    // Labels hold at most 40 characters; the product's name goes in the description.
    const label = `PE ${product.id} ${baseLabel}`.slice(0, 40);
    const metadata: Record<string, unknown> = { label, type, description: `Prospect enrichment for ${product.name}`.slice(0, 1000) };
    if (type === 'Text') metadata.length = TEXT_LENGTH;
    if (type === 'LongTextArea') Object.assign(metadata, { length: LONG_TEXT_LENGTH, visibleLines: LONG_TEXT_LINES });
    if (type === 'Picklist') {
      metadata.valueSet = { restricted: true, valueSetDefinition: { sorted: false, value: CRM_STATUS_VALUES.map((value) => ({ fullName: value, label: value, default: false })) } };
    }
    return { field, name: ownFieldName(product.id, field), label, type, metadata };
  });
}

/** Our values in Salesforce's formats; texts cut to the field's length. */
export function toSalesforce(productId: number, own: OwnValues): Record<string, string> {
  const values: Record<string, string> = {};
  for (const { field } of CRM_FIELDS) {
    const value = own[field];
    if (value === undefined) continue;
    const type = typeOf(field);
    values[ownFieldName(productId, field)] = type === 'Text' ? value.slice(0, TEXT_LENGTH) : type === 'LongTextArea' ? value.slice(0, LONG_TEXT_LENGTH) : value;
  }
  return values;
}

/** A record's values of our fields as plain strings (enriched_at ISO 8601); empty ones absent. */
export function fromSalesforce(productId: number, record: Record<string, unknown>): OwnValues {
  const own: OwnValues = {};
  for (const { field } of CRM_FIELDS) {
    const value = record[ownFieldName(productId, field)];
    if (value === null || value === undefined || value === '') continue;
    own[field] = field === 'enriched_at' ? new Date(String(value).replace(/([+-]\d{2})(\d{2})$/, '$1:$2')).toISOString() : String(value);
  }
  return own;
}

/** The admin's steps when the API may not create the fields or grant them (docs/crm-salesforce.md#when-the-user-may-not-create-fields). */
export function adminSteps(object: 'Contact' | 'Lead', product: { id: number; name: string }, connectedUser: string | null): string[] {
  const describe = (definition: OwnFieldDefinition) => {
    const api = `Field Name ${definition.name.replace(/__c$/, '')} (API name ${definition.name})`;
    if (definition.type === 'Picklist') return `Picklist "${definition.label}", ${api}: values ${CRM_STATUS_VALUES.join(', ')}, one per line, "Restrict picklist to the values defined in the value set" ticked.`;
    if (definition.type === 'LongTextArea') return `Text Area (Long) "${definition.label}", ${api}: length ${LONG_TEXT_LENGTH.toLocaleString('en')}, ${LONG_TEXT_LINES} visible lines.`;
    if (definition.type === 'Text') return `Text "${definition.label}", ${api}: length ${TEXT_LENGTH}.`;
    return `Date/Time "${definition.label}", ${api}.`;
  };
  const permissionSet = `Pe_${product.id}_Prospect_Enrichment`;
  return [
    `The connected Salesforce user may not create fields. A Salesforce admin creates nine fields on ${object} for "${product.name}" once:`,
    `In Salesforce, open Setup → Object Manager → ${object} → Fields & Relationships, and for each field below click New, choose the data type, enter the label and field name, and click Next.`,
    ...ownFieldDefinitions(product).map(describe),
    `On the "Establish field-level security" step of each field, leave the profiles as they are and click Next, then Save (access is granted by the permission set below).`,
    `Setup → Permission Sets → New: Label "${permissionSet.replace(/_/g, ' ')}", API Name ${permissionSet}, Save. Then Object Settings → ${object}s → Edit, tick Read Access and Edit Access for the nine "PE ${product.id} …" fields, Save.`,
    `In the permission set, Manage Assignments → Add Assignment → choose ${connectedUser ? `the connected user (${connectedUser})` : 'the user who connected the app'} → Assign.`,
    'Back here, check the fields again: the run starts once all nine are there and writable.',
  ];
}
