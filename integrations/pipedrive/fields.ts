// Person fields (docs/crm-pipedrive.md#what-it-creates), from Pipedrive's
// Fields API (developers.pipedrive.com/docs/api/v1/PersonFields; v1 OpenAPI
// `getPersonFields`, `addPersonField`): each field has a numeric `id` (what a
// filter condition names), a `key` (a 40-character hash for custom fields,
// what a person's `custom_fields` is keyed by in API v2), a `field_type` and,
// for enum fields, `options` of `{ id, label }` (a value is the option's id).
// Pure: the adapter maps through these functions.
import { CRM_FIELDS, CRM_STATUS_VALUES, type CrmField } from '../../domain/crm/fields.ts';
import type { MappableProperty } from '../../domain/crm/write-rules.ts';
import type { OwnValues } from '../crm/adapter.ts';
import { CrmRejected } from '../crm/errors.ts';

export interface PersonField {
  id: number;
  key: string;
  name: string;
  field_type: string;
  edit_flag?: boolean;
  active_flag?: boolean;
  options?: Array<{ id: number; label: string }> | null;
}

/**
 * Our field types: the status an `enum` (one choice; a filter compares its
 * option id), long texts `text`, short ones `varchar` (255 characters), and
 * Enriched At a `date`: a filter can compare a date with `<`, which
 * re-enrichment needs, and cannot compare a varchar. Its value is the day
 * (YYYY-MM-DD), so re-enrichment counts whole days.
 */
const OWN_FIELD_TYPES: Record<CrmField, 'enum' | 'text' | 'varchar' | 'date'> = {
  status: 'enum',
  prospect_summary: 'text',
  opening_talk: 'text',
  synergy_points: 'text',
  discovery_questions: 'text',
  company_news: 'text',
  company_industry: 'varchar',
  company_employees: 'varchar',
  enriched_at: 'date',
};

export const STATUS_OPTION_LABELS: Record<(typeof CRM_STATUS_VALUES)[number], string> = { in_progress: 'In progress', completed: 'Completed', failed: 'Failed' };

/** Field names carry the product's id: Pipedrive names are not unique, and a product's name may change. */
export const ownFieldName = (productId: number, field: CrmField) => `${CRM_FIELDS.find((each) => each.field === field)!.label} (Prospect Enrichment #${productId})`;
const OWN_NAME = /\(Prospect Enrichment #\d+\)$/;

export function ownFieldDefinitions(productId: number) {
  return CRM_FIELDS.map(({ field }) => ({
    field,
    name: ownFieldName(productId, field),
    field_type: OWN_FIELD_TYPES[field],
    ...(field === 'status' ? { options: CRM_STATUS_VALUES.map((value) => ({ label: STATUS_OPTION_LABELS[value] })) } : {}),
  }));
}

const isCustom = (field: PersonField) => /^[0-9a-f]{40}$/.test(field.key) && field.active_flag !== false;
const NUMBER_TYPES = ['double', 'int', 'monetary'];

/** Numbers a person carries that can be a lead score: custom double, int or monetary fields (Pipedrive has no score of its own). */
export function scoreFieldsOf(fields: PersonField[]): Array<{ name: string; label: string }> {
  return fields
    .filter((field) => isCustom(field) && NUMBER_TYPES.includes(field.field_type))
    .map((field) => ({ name: field.key, label: field.name }))
    .sort((a, b) => a.label.localeCompare(b.label, 'en'));
}

/** Custom fields a write rule can write: short or long texts, and plain numbers; never a product's own. */
export function mappableFieldsOf(fields: PersonField[]): MappableProperty[] {
  return fields
    .filter((field) => isCustom(field) && field.edit_flag !== false && !OWN_NAME.test(field.name) && ['varchar', 'text', 'double'].includes(field.field_type))
    .map((field) => ({ name: field.key, label: field.name, type: field.field_type === 'double' ? ('number' as const) : ('string' as const) }))
    .sort((a, b) => a.label.localeCompare(b.label, 'en'));
}

/** A custom field's value as API v2 answers it, as text: a number, an option id, a date, a monetary `{ value, currency }`. */
export function textOf(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'object') return textOf((value as { value?: unknown }).value);
  return String(value);
}

export function numberOf(value: unknown): number | null {
  const text = textOf(value);
  if (text === null) return null;
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : null;
}

/** Our values as we wrote them, from a person's `custom_fields`. */
export function ownValuesOf(customFields: Record<string, unknown>, keys: Partial<Record<CrmField, string>>, statusField: PersonField | undefined): OwnValues {
  const own: OwnValues = {};
  for (const [field, key] of Object.entries(keys) as Array<[CrmField, string]>) {
    const value = textOf(customFields[key]);
    if (value === null) continue;
    if (field === 'status') {
      const label = statusField?.options?.find((option) => String(option.id) === value)?.label;
      const status = CRM_STATUS_VALUES.find((each) => STATUS_OPTION_LABELS[each] === label);
      if (status) own.status = status;
    } else {
      own[field] = value;
    }
  }
  return own;
}

/** Our values in API v2's types: the status as its option's id (a number), Enriched At as its day; `null` empties a field. */
export function ownCustomFields(own: OwnValues, keys: Partial<Record<CrmField, string>>, statusField: PersonField | undefined): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [field, value] of Object.entries(own) as Array<[CrmField, string | undefined]>) {
    const key = keys[field];
    if (!key || value === undefined) continue;
    if (field === 'status') {
      const option = statusField?.options?.find((each) => each.label === STATUS_OPTION_LABELS[value as keyof typeof STATUS_OPTION_LABELS]);
      if (!option) throw new CrmRejected(409, `Pipedrive: the status field has no ${STATUS_OPTION_LABELS[value as keyof typeof STATUS_OPTION_LABELS] ?? value} option`);
      out[key] = option.id;
    } else if (field === 'enriched_at') {
      out[key] = value === '' ? null : new Date(value).toISOString().slice(0, 10);
    } else if (OWN_FIELD_TYPES[field] === 'varchar') {
      out[key] = value.slice(0, 255);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** A mapped field's value in its field's type: API v2 refuses a number sent as text. Null: it does not fit. */
export function mappedValue(field: PersonField | undefined, value: string): string | number | null {
  if (!field) return null;
  if (field.field_type === 'double') {
    const parsed = Number(value);
    return value.trim() !== '' && Number.isFinite(parsed) ? parsed : null;
  }
  return field.field_type === 'varchar' ? value.slice(0, 255) : value;
}
