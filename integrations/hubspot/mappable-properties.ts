// Which of a portal's contact properties a write-rule mapping can write
// (docs/crm.md#write-rules), from HubSpot's property metadata
// (developers.hubspot.com/docs/api/crm/properties; PublicApiSpecs/CRM/Properties
// v3 `Property`): a text (single-line or multi-line) or a number that people
// or integrations set. Never a value HubSpot keeps itself (read-only,
// calculated), an id (unique values, another record's id), a hidden or
// archived one, the e-mail (a contact's identity: we never merge contacts),
// or a product's own `pe_` property (always written by its own run).
import type { MappableProperty } from '../../domain/crm/write-rules.ts';
import type { PropertyMetadata } from './score-properties.ts';

export function canBeMapped(property: PropertyMetadata): boolean {
  const isText = property.type === 'string' && ['text', 'textarea'].includes(property.fieldType);
  const isNumber = property.type === 'number' && property.fieldType === 'number';
  if (!isText && !isNumber) return false;
  if (property.hidden || property.archived || property.calculated || property.hasUniqueValue || property.referencedObjectType) return false;
  if (property.modificationMetadata?.readOnlyValue) return false;
  return property.name !== 'email' && !/^pe_\d+_/.test(property.name);
}

/** The mappable properties among a portal's, by label. */
export function mappablePropertiesOf(properties: PropertyMetadata[]): MappableProperty[] {
  return properties
    .filter(canBeMapped)
    .map((property) => ({ name: property.name, label: property.label, type: property.type === 'number' ? ('number' as const) : ('string' as const) }))
    .sort((a, b) => a.label.localeCompare(b.label, 'en'));
}
