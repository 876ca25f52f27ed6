// Our fields in the CRM, the same in each CRM (docs/crm.md#what-a-sync-does): what a
// run writes per contact and the names they get. Apart from the settings in crm.ts
// so that the write rules can name these fields without importing the settings
// that name the write rules. Pure: workflow code imports it.

export const CRM_STATUS_VALUES = ['in_progress', 'completed', 'failed'] as const;
export type CrmContactStatus = (typeof CRM_STATUS_VALUES)[number];

/** The fields written per contact, in display order (docs/crm.md#what-a-sync-does); `status` is written last. */
export const CRM_FIELDS = [
  { field: 'status', label: 'Status', type: 'enumeration', fieldType: 'select' },
  { field: 'prospect_summary', label: 'Prospect Summary', type: 'string', fieldType: 'textarea' },
  { field: 'opening_talk', label: 'Opening Talk', type: 'string', fieldType: 'textarea' },
  { field: 'synergy_points', label: 'Synergy Points', type: 'string', fieldType: 'textarea' },
  { field: 'discovery_questions', label: 'Discovery Questions', type: 'string', fieldType: 'textarea' },
  { field: 'company_news', label: 'Company News', type: 'string', fieldType: 'textarea' },
  { field: 'company_industry', label: 'Company Industry', type: 'string', fieldType: 'text' },
  { field: 'company_employees', label: 'Company Employees', type: 'string', fieldType: 'text' },
  { field: 'enriched_at', label: 'Enriched At', type: 'datetime', fieldType: 'date' },
] as const;
export type CrmField = (typeof CRM_FIELDS)[number]['field'];

export const crmGroupName = (productId: number) => `pe_${productId}`;
export const crmPropertyName = (productId: number, field: CrmField) => `pe_${productId}_${field}`;
