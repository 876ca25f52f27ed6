// Which of an org's Contact or Lead fields can be a lead score or a write
// rule's target, from describe (REST API Developer Guide, "sObject
// Describe"; field properties as the Object Reference's "Field Types" and
// DescribeFieldResult: type, filterable, sortable, updateable, calculated,
// unique, externalId, compoundFieldName, extraTypeInfo).
// - A score is a number (double, int, percent, currency) a query can filter
//   and sort on; formula numbers count (a score is often a formula). Not a
//   part of a compound field (latitude, longitude) nor one of our fields.
// - A write rule writes a text (Text, Text Area, Long Text Area; never rich
//   text, which holds HTML) or a number (double, int) that the user may edit:
//   never a formula, a unique or external id, the e-mail (a contact's
//   identity: we never merge contacts), nor a product's own Pe_ field.
import type { MappableProperty } from '../../domain/crm/write-rules.ts';
import { isOwnFieldName } from './fields.ts';

export interface DescribeField {
  name: string;
  label: string;
  type: string;
  filterable?: boolean;
  sortable?: boolean;
  updateable?: boolean;
  calculated?: boolean;
  unique?: boolean;
  externalId?: boolean;
  compoundFieldName?: string | null;
  extraTypeInfo?: string | null;
}

const SCORE_TYPES = new Set(['double', 'int', 'percent', 'currency']);

export function canBeScore(field: DescribeField): boolean {
  if (!SCORE_TYPES.has(field.type) || !field.filterable || !field.sortable) return false;
  return !field.compoundFieldName && !isOwnFieldName(field.name);
}

export function canBeMapped(field: DescribeField): boolean {
  const isText = field.type === 'string' || (field.type === 'textarea' && field.extraTypeInfo !== 'richtextarea');
  const isNumber = field.type === 'double' || field.type === 'int';
  if (!isText && !isNumber) return false;
  if (!field.updateable || field.calculated || field.unique || field.externalId || field.compoundFieldName) return false;
  return field.name !== 'Email' && !isOwnFieldName(field.name);
}

const byLabel = (a: { label: string }, b: { label: string }) => a.label.localeCompare(b.label, 'en');

export function scoreFieldsOf(fields: DescribeField[]): Array<{ name: string; label: string }> {
  return fields.filter(canBeScore).map(({ name, label }) => ({ name, label })).sort(byLabel);
}

export function mappableFieldsOf(fields: DescribeField[]): MappableProperty[] {
  return fields
    .filter(canBeMapped)
    .map((field) => ({ name: field.name, label: field.label, type: field.type === 'double' || field.type === 'int' ? ('number' as const) : ('string' as const) }))
    .sort(byLabel);
}
