// Which contact properties can be a lead score (docs/crm.md#what-a-sync-does),
// from HubSpot's own property metadata (developers.hubspot.com/docs/api/crm/properties;
// PublicApiSpecs/CRM/Properties v3 `Property`). A score is a number many
// contacts share and that someone or something sets: HubSpot's scores
// (`hubspotscore` is a `calculation_score` field), its other calculated
// numbers, and a portal's own number properties. Numbers that only identify
// (the Record ID `hs_object_id`, a creator's user id, another record's id,
// unique values) are not offered, nor hidden or archived ones.

/** The metadata the rule reads, as GET /crm/v3/properties/contacts answers it. */
export interface PropertyMetadata {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  hidden?: boolean;
  archived?: boolean;
  calculated?: boolean;
  hasUniqueValue?: boolean;
  referencedObjectType?: string;
  modificationMetadata?: { readOnlyValue?: boolean };
}

export interface ScoreProperty {
  name: string;
  label: string;
}

export function canBeLeadScore(property: PropertyMetadata): boolean {
  if (property.type !== 'number' || property.hidden || property.archived) return false;
  // Values that tell records apart, or point at another record, are ids.
  if (property.hasUniqueValue || property.referencedObjectType) return false;
  // Set once by HubSpot and never calculated: a record id, a creator's user id, a date kept as a number.
  if (property.modificationMetadata?.readOnlyValue && !property.calculated && property.fieldType !== 'calculation_score') return false;
  return true;
}

/** The score candidates among a portal's properties, by label. */
export function scorePropertiesOf(properties: PropertyMetadata[]): ScoreProperty[] {
  return properties
    .filter(canBeLeadScore)
    .map((property) => ({ name: property.name, label: property.label }))
    .sort((a, b) => a.label.localeCompare(b.label, 'en'));
}
