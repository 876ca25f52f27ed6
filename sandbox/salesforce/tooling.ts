// Custom field creation through the Tooling API: POST
// /services/data/vXX.X/tooling/sobjects/CustomField with { FullName:
// 'Object.Name__c', Metadata: { label, type, … } } (Tooling API Developer
// Guide, "CustomField": developer.salesforce.com/docs/atlas.en-us.api_tooling.meta/api_tooling/tooling_api_objects_customfield.htm;
// the Metadata is the Metadata API's CustomField: …/api_meta/customfield.htm:
// Text takes `length` (1–255); LongTextArea `length` (256–131,072) and
// `visibleLines`; Picklist a `valueSet.valueSetDefinition.value` list,
// `restricted` optional; DateTime and Number (`precision`, `scale`)). It needs
// the Customize Application permission. A new field is seen by no one until
// field-level security grants it.
import { z } from 'zod';
import type { Field, Org } from './org.ts';
import { newId } from './org.ts';

export class ToolingError extends Error {
  readonly status: number;
  readonly errorCode: string;
  constructor(status: number, errorCode: string, message: string) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
  }
}

const ZCustomField = z.object({
  FullName: z.string(),
  Metadata: z.object({
    label: z.string().min(1).max(40),
    type: z.enum(['Text', 'LongTextArea', 'Picklist', 'DateTime', 'Number']),
    length: z.number().int().optional(),
    visibleLines: z.number().int().optional(),
    precision: z.number().int().optional(),
    scale: z.number().int().optional(),
    description: z.string().max(1000).optional(),
    inlineHelpText: z.string().max(510).optional(),
    required: z.boolean().optional(),
    valueSet: z.object({
      restricted: z.boolean().optional(),
      valueSetDefinition: z.object({ sorted: z.boolean().optional(), value: z.array(z.object({ fullName: z.string(), label: z.string(), default: z.boolean().optional() })).min(1) }),
    }).optional(),
  }).strict(),
}).strict();

/** Creates the field; the new field's id. */
export function createCustomField(org: Org, body: unknown, options: { lacksFieldRights: boolean }): string {
  if (options.lacksFieldRights) throw new ToolingError(403, 'INSUFFICIENT_ACCESS_OR_READONLY', 'insufficient access rights on object id');
  const parsed = ZCustomField.safeParse(body);
  if (!parsed.success) throw new ToolingError(400, 'JSON_PARSER_ERROR', `Cannot deserialize instance of CustomField: ${z.prettifyError(parsed.error)}`);
  const { FullName, Metadata: metadata } = parsed.data;
  const [objectName, name] = FullName.split('.');
  const object = org.objects.get(objectName ?? '');
  if (!object || !['Contact', 'Lead'].includes(object.name)) throw new ToolingError(400, 'INVALID_TYPE', `Cannot create a field on ${objectName ?? ''}`);
  if (!name || !/^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*__c$/.test(name) || name.length > 43) {
    throw new ToolingError(400, 'FIELD_INTEGRITY_EXCEPTION', 'Field Name: The API name can only contain underscores and alphanumeric characters. It must be unique, begin with a letter, not include spaces, not end with an underscore, and not contain two consecutive underscores.');
  }
  if ([...object.fields.keys()].some((existing) => existing.toLowerCase() === name.toLowerCase())) {
    throw new ToolingError(400, 'DUPLICATE_DEVELOPER_NAME', `There is already a field named ${name.replace(/__c$/, '')} on ${object.name}.`);
  }
  const missing = (what: string) => new ToolingError(400, 'FIELD_INTEGRITY_EXCEPTION', `${what}: You must enter a value`);
  let field: Partial<Field>;
  switch (metadata.type) {
    case 'Text':
      if (metadata.length === undefined) throw missing('Length');
      if (metadata.length < 1 || metadata.length > 255) throw new ToolingError(400, 'FIELD_INTEGRITY_EXCEPTION', 'Length: Value must be between 1 and 255');
      field = { type: 'string', length: metadata.length };
      break;
    case 'LongTextArea':
      if (metadata.length === undefined) throw missing('Length');
      if (metadata.visibleLines === undefined) throw missing('Visible Lines');
      if (metadata.length < 256 || metadata.length > 131_072) throw new ToolingError(400, 'FIELD_INTEGRITY_EXCEPTION', 'Length: Value must be between 256 and 131,072');
      field = { type: 'textarea', length: metadata.length, filterable: false, sortable: false, extraTypeInfo: 'plaintextarea' };
      break;
    case 'Picklist':
      if (!metadata.valueSet) throw missing('Values');
      field = {
        type: 'picklist', length: 255, restrictedPicklist: metadata.valueSet.restricted ?? false,
        picklistValues: metadata.valueSet.valueSetDefinition.value.map((value) => ({ value: value.fullName, label: value.label, active: true, defaultValue: value.default ?? false })),
      };
      break;
    case 'DateTime':
      field = { type: 'datetime', length: 0 };
      break;
    default:
      field = { type: 'double', length: 0 };
  }
  object.fields.set(name, {
    name, label: metadata.label, length: 0, custom: true, filterable: true, sortable: true, createable: true, updateable: true, calculated: false, unique: false, externalId: false,
    nillable: true, compoundFieldName: null, extraTypeInfo: null, picklistValues: [], restrictedPicklist: false, needsGrant: true, ...field,
  } as Field);
  return newId(org, '00N');
}
