// The write rules (domain/crm/write-rules.ts; docs/crm.md#write-rules) and
// which portal properties a mapping may write
// (integrations/hubspot/mappable-properties.ts): pure.
import { describe, expect, it } from 'vitest';
import { asNumberValue, decideMappings, mappedWrites, propertiesToRead, type MappableProperty, type PropertyMapping } from '../../domain/crm/write-rules.ts';
import { canBeMapped, mappablePropertiesOf } from '../../integrations/hubspot/mappable-properties.ts';

const targets = new Map<string, MappableProperty>([
  ['industry', { name: 'industry', label: 'Industry', type: 'string' }],
  ['numberofemployees', { name: 'numberofemployees', label: 'Number of Employees', type: 'number' }],
  ['jobtitle', { name: 'jobtitle', label: 'Job Title', type: 'string' }],
]);
const values = {
  company_industry: 'Software', company_employees: '1,200', prospect_summary: 'Leads sales.', opening_talk: null, synergy_points: null, discovery_questions: null, company_news: null,
};

describe('write rules', () => {
  it('fill only when empty writes an empty property and leaves one with a value; overwrite writes either; never writes nothing', () => {
    const mappings: PropertyMapping[] = [
      { field: 'company_industry', property: 'industry', rule: 'fill_empty' },
      { field: 'company_employees', property: 'numberofemployees', rule: 'overwrite' },
      { field: 'prospect_summary', property: 'jobtitle', rule: 'never' },
    ];
    const empty = decideMappings(mappings, targets, values, { industry: '  ', numberofemployees: null });
    expect(empty.map((decision) => decision.action)).toEqual(['fill', 'fill', 'leave']);
    expect(mappedWrites(empty)).toEqual({ industry: 'Software', numberofemployees: '1200' });
    const full = decideMappings(mappings, targets, values, { industry: 'Retail', numberofemployees: '40', jobtitle: 'CEO' });
    expect(full.map((decision) => (decision.action === 'leave' ? decision.reason : decision.action))).toEqual(['has_value', 'overwrite', 'never']);
    expect(mappedWrites(full)).toEqual({ numberofemployees: '1200' });
    expect(full[0]).toMatchObject({ current: 'Retail' });
  });

  it('leaves alone what the research did not find, a value that is not a number for a number property, and a property gone from the portal', () => {
    const decisions = decideMappings([
      { field: 'opening_talk', property: 'jobtitle', rule: 'overwrite' },
      { field: 'company_employees', property: 'numberofemployees', rule: 'overwrite' },
      { field: 'company_industry', property: 'archived_one', rule: 'overwrite' },
    ], targets, { ...values, company_employees: '51-200' }, {});
    expect(decisions.map((decision) => (decision.action === 'leave' ? decision.reason : decision.action))).toEqual(['no_value', 'not_a_number', 'gone']);
    expect(mappedWrites(decisions)).toEqual({});
  });

  it('before the research (the preview) says what would be written, without a value', () => {
    const decisions = decideMappings([{ field: 'company_industry', property: 'industry', rule: 'fill_empty' }], targets, null, {});
    expect(decisions).toEqual([{ field: 'company_industry', property: 'industry', rule: 'fill_empty', current: null, action: 'fill', value: null }]);
    expect(mappedWrites(decisions)).toEqual({});
  });

  it('reads before writing only the properties whose rule depends on their value', () => {
    expect(propertiesToRead([
      { field: 'company_industry', property: 'industry', rule: 'fill_empty' }, { field: 'company_employees', property: 'numberofemployees', rule: 'overwrite' },
      { field: 'prospect_summary', property: 'jobtitle', rule: 'never' },
    ])).toEqual(['industry']);
  });

  it('takes whole numbers with thousands commas as numbers, not ranges or words', () => {
    expect(['1200', '1,200', '12,345,678', ' 40 '].map(asNumberValue)).toEqual(['1200', '1200', '12345678', '40']);
    expect(['51-200', '1.2k', '10,00', 'about 50', ''].map(asNumberValue)).toEqual([null, null, null, null, null]);
  });
});

describe('which portal properties a mapping may write', () => {
  const property = (name: string, extra: Record<string, unknown> = {}) => ({ name, label: name, type: 'string', fieldType: 'text', ...extra });
  it('texts and numbers people set; never the e-mail, a product\'s own property, an id, a hidden, calculated or read-only one', () => {
    expect(canBeMapped(property('industry'))).toBe(true);
    expect(canBeMapped(property('notes_text', { fieldType: 'textarea' }))).toBe(true);
    expect(canBeMapped(property('numberofemployees', { type: 'number', fieldType: 'number' }))).toBe(true);
    for (const refused of [
      property('email'), property('pe_12_prospect_summary'), property('lifecyclestage', { type: 'enumeration', fieldType: 'select' }),
      property('hubspotscore', { type: 'number', fieldType: 'calculation_score', calculated: true }), property('hs_object_id', { type: 'number', fieldType: 'number', modificationMetadata: { readOnlyValue: true } }),
      property('external_id', { hasUniqueValue: true }), property('associatedcompanyid', { type: 'number', fieldType: 'number', referencedObjectType: 'COMPANY' }),
      property('secret', { hidden: true }), property('old', { archived: true }), property('site', { fieldType: 'html' }),
    ]) expect(canBeMapped(refused), refused.name).toBe(false);
    expect(mappablePropertiesOf([property('b_prop', { label: 'Zeta' }), property('a_prop', { label: 'Alpha', type: 'number', fieldType: 'number' })])).toEqual([
      { name: 'a_prop', label: 'Alpha', type: 'number' }, { name: 'b_prop', label: 'Zeta', type: 'string' },
    ]);
  });
});
