// Write rules (docs/crm.md#write-rules): the product's own properties are
// always written; beside them, a setting maps research outputs onto the
// portal's existing properties, each with a rule: fill only when empty (the
// default), overwrite, or never. Pure: the preview, the settings' checks and
// the run's batch write decide with the same functions. Workflow code imports
// this module's types.
import type { CrmField } from './fields.ts';

/** Research outputs that can be mapped onto a portal property (status and enriched_at are ours alone). */
export const CRM_MAPPABLE_FIELDS = [
  'company_industry', 'company_employees', 'prospect_summary', 'opening_talk', 'synergy_points', 'discovery_questions', 'company_news',
] as const satisfies readonly CrmField[];
export type CrmMappableField = (typeof CRM_MAPPABLE_FIELDS)[number];

export const CRM_MAPPABLE_FIELD_LABELS: Record<CrmMappableField, string> = {
  company_industry: 'Company Industry',
  company_employees: 'Company Employees',
  prospect_summary: 'Prospect Summary',
  opening_talk: 'Opening Talk',
  synergy_points: 'Synergy Points',
  discovery_questions: 'Discovery Questions',
  company_news: 'Company News',
};

export const WRITE_RULES = ['fill_empty', 'overwrite', 'never'] as const;
export type WriteRule = (typeof WRITE_RULES)[number];
export const WRITE_RULE_LABELS: Record<WriteRule, string> = { fill_empty: 'Only fill when empty', overwrite: 'Overwrite', never: 'Never write' };

export interface PropertyMapping {
  field: CrmMappableField;
  /** The portal property's internal name. */
  property: string;
  rule: WriteRule;
}

/** A portal property a mapping can write: a single-line or multi-line text, or a number. */
export interface MappableProperty {
  name: string;
  label: string;
  type: 'string' | 'number';
}

/** Only Company Employees is a number; text outputs go to text properties only. */
export const canMapOnto = (field: CrmMappableField, property: MappableProperty) => property.type === 'string' || field === 'company_employees';

/**
 * One mapped property of one contact: written (`fill`: it was empty;
 * `overwrite`: it had a value), or left alone and why. Before the research
 * (the preview) `value` is null: it says what would happen if the research
 * finds one.
 */
export type MappingDecision = { field: CrmMappableField; property: string; rule: WriteRule; current: string | null } & (
  | { action: 'fill' | 'overwrite'; value: string | null }
  | { action: 'leave'; reason: LeaveReason }
);

export type LeaveReason = 'has_value' | 'never' | 'no_value' | 'not_a_number' | 'gone';
export const LEAVE_REASON_LABELS: Record<LeaveReason, string> = {
  has_value: 'it has a value',
  never: 'the rule is never',
  no_value: 'the research found nothing for it',
  not_a_number: 'the research\u2019s value is not a number',
  gone: 'the field is gone from the CRM',
};

const isEmpty = (value: string | null | undefined) => value === undefined || value === null || value.trim() === '';

/** A number HubSpot takes: digits, with thousands commas at most ("1,200" → "1200"); a range such as "51-200" is not one. */
export function asNumberValue(text: string): string | null {
  const trimmed = text.trim();
  return /^\d{1,3}(,\d{3})+$|^\d+$/.test(trimmed) ? String(Number(trimmed.replaceAll(',', ''))) : null;
}

/**
 * What each mapping does to one contact. `targets`: the portal's mappable
 * properties by name (a mapped one missing is `gone`); `values`: the
 * research's outputs, or null before the research; `current`: the contact's
 * values of the mapped properties now.
 */
export function decideMappings(
  mappings: readonly PropertyMapping[],
  targets: ReadonlyMap<string, MappableProperty>,
  values: Readonly<Record<CrmMappableField, string | null>> | null,
  current: Readonly<Record<string, string | null | undefined>>,
): MappingDecision[] {
  return mappings.map((mapping) => {
    const base = { field: mapping.field, property: mapping.property, rule: mapping.rule, current: isEmpty(current[mapping.property]) ? null : current[mapping.property]! };
    const target = targets.get(mapping.property);
    if (!target) return { ...base, action: 'leave', reason: 'gone' };
    if (mapping.rule === 'never') return { ...base, action: 'leave', reason: 'never' };
    if (mapping.rule === 'fill_empty' && base.current !== null) return { ...base, action: 'leave', reason: 'has_value' };
    const action = base.current === null ? 'fill' : 'overwrite';
    if (values === null) return { ...base, action, value: null };
    const raw = values[mapping.field];
    if (raw === null) return { ...base, action: 'leave', reason: 'no_value' };
    const value = target.type === 'number' ? asNumberValue(raw) : raw.slice(0, 65_536);
    if (value === null) return { ...base, action: 'leave', reason: 'not_a_number' };
    return { ...base, action, value };
  });
}

/** The properties to send for the decisions that write. */
export const mappedWrites = (decisions: readonly MappingDecision[]): Record<string, string> =>
  Object.fromEntries(decisions.flatMap((decision) => (decision.action !== 'leave' && decision.value !== null ? [[decision.property, decision.value]] : [])));

/** The mapped properties whose current value the rules need read before writing (fill only when empty). */
export const propertiesToRead = (mappings: readonly PropertyMapping[]) => mappings.filter((mapping) => mapping.rule === 'fill_empty').map((mapping) => mapping.property);
