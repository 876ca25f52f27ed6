// Our person fields for a product (docs/crm-pipedrive.md#what-it-creates),
// made unless they exist. Pipedrive field names are not unique and it has no
// "create unless exists", so two processes may each make the same field:
// after making any, every process reads the fields again and keeps, per
// name, the oldest (lowest id) and deletes the others, so all of them settle
// on the same keys. Making fields takes the `admin` scope and an admin user
// (v1 OpenAPI `addPersonField`): otherwise the admin's steps come back.
import { CRM_FIELDS, type CrmField } from '../../domain/crm/fields.ts';
import type { OwnFieldKeyStore, OwnFieldsState } from '../crm/adapter.ts';
import { CrmRejected } from '../crm/errors.ts';
import { pipedriveApi, type PipedriveClient } from './client.ts';
import { ownFieldDefinitions, type PersonField } from './fields.ts';

export async function ensureOwnFields(input: {
  client: PipedriveClient;
  product: { id: number; name: string };
  fieldKeys: OwnFieldKeyStore;
  personFields: (isFresh?: boolean) => Promise<PersonField[]>;
}): Promise<OwnFieldsState> {
  const { client, product, fieldKeys } = input;
  const definitions = ownFieldDefinitions(product.id);
  const stored = (await fieldKeys.get(product.id)) ?? {};

  const settle = (fields: PersonField[]) => {
    const keys: Partial<Record<CrmField, string>> = {};
    for (const definition of definitions) {
      const live = fields.filter((field) => field.active_flag !== false);
      // A stored key wins (an admin may have renamed our field); else the oldest of that name.
      const kept = live.find((field) => field.key === stored[definition.field]) ?? live.filter((field) => field.name === definition.name).sort((a, b) => a.id - b.id)[0];
      if (kept) keys[definition.field] = kept.key;
    }
    return keys;
  };

  let fields = await input.personFields(true);
  let keys = settle(fields);
  const missing = definitions.filter((definition) => keys[definition.field] === undefined);
  if (missing.length > 0) {
    for (const definition of missing) {
      try {
        await client.call('addPersonField', (sdk) =>
          pipedriveApi.personFields(sdk).addPersonField({ name: definition.name, field_type: definition.field_type, ...(definition.options ? { options: definition.options } : {}) }),
        );
      } catch (error) {
        if (error instanceof CrmRejected && (error.status === 403 || error.status === 402)) return { ready: false, steps: adminSteps(product, missing.map((each) => each.name), error.status) };
        throw error;
      }
    }
    fields = await input.personFields(true);
    keys = settle(fields);
    const kept = new Set(Object.values(keys));
    const names = new Set(definitions.map((definition) => definition.name));
    for (const duplicate of fields.filter((field) => names.has(field.name) && !kept.has(field.key) && field.active_flag !== false)) {
      try {
        await client.call('deletePersonField', (sdk) => pipedriveApi.personFields(sdk).deletePersonField(duplicate.id));
      } catch (error) {
        // Another process deleted it first.
        if (!(error instanceof CrmRejected && (error.status === 404 || error.status === 410))) throw error;
      }
    }
  }
  const isComplete = CRM_FIELDS.every(({ field }) => keys[field] !== undefined);
  if (!isComplete) throw new CrmRejected(409, `Pipedrive: the fields of product ${product.id} could not all be made`);
  if (CRM_FIELDS.some(({ field }) => stored[field] !== keys[field])) await fieldKeys.save(product.id, keys);
  return { ready: true };
}

function adminSteps(product: { id: number; name: string }, names: string[], status: number): string[] {
  if (status === 402) return ['Pipedrive refused new custom fields: the company has reached its plan\u2019s custom field limit.', 'Remove unused person fields or upgrade the plan, then save the settings again.'];
  return [
    `Pipedrive lets only admins create person fields; reconnect Pipedrive as a company admin, or ask one to create these person fields for ${product.name}:`,
    ...names.map((name) => `${name}`),
    'Then save the settings again.',
  ];
}
