import { Button, Fieldset, Group, NumberInput, Select, Stack, Switch, Text } from '@mantine/core';
import { Controller, useFieldArray, useWatch, type Control, type FieldErrors } from 'react-hook-form';
import { useCrmName } from '../crm-name.ts';
import {
  canMapOnto, CRM_MAPPABLE_FIELD_LABELS, CRM_MAPPABLE_FIELDS, WRITE_RULE_LABELS, WRITE_RULES, type CrmMappableField, type MappableProperty,
} from '../../../../../domain/crm/write-rules.ts';

/** The form values this part edits (the settings form holds them beside its own). */
export interface WriteRulesValues {
  propertyMappings: Array<{ field: string; property: string; rule: string }>;
  reEnrich: boolean;
  reEnrichAfterDays: number | string;
}

/**
 * Write rules and re-enrichment (docs/crm.md#write-rules): the product's own
 * properties are always written; each mapping writes a research output onto
 * one of the portal's text or number properties too, by its rule; completed
 * contacts can be researched again after some days (a credit each).
 */
export function CrmWriteRulesFields<T extends WriteRulesValues>(props: {
  control: Control<T>;
  errors: FieldErrors<T>;
  /** The portal's properties a mapping can write (null: not connected or not read yet). */
  mappable: MappableProperty[] | null;
}) {
  const control = props.control as unknown as Control<WriteRulesValues>;
  const errors = props.errors as FieldErrors<WriteRulesValues>;
  const { fields, append, remove } = useFieldArray({ control, name: 'propertyMappings' });
  const mappings = useWatch({ control, name: 'propertyMappings' });
  const isReEnriching = useWatch({ control, name: 'reEnrich' });
  const crm = useCrmName();
  const known = (name: string) => props.mappable?.find((property) => property.name === name);
  // Each output's choices: the portal's properties that fit it, and the one chosen even if the portal's list lacks it now.
  const propertyChoices = (field: string, chosen: string) => {
    const fitting = (props.mappable ?? []).filter((property) => canMapOnto(field as CrmMappableField, property));
    const all = chosen && !fitting.some((property) => property.name === chosen) ? [...fitting, { name: chosen, label: known(chosen)?.label ?? chosen }] : fitting;
    return all.map((property) => ({ value: property.name, label: `${property.label} (${property.name})` }));
  };
  const unused = CRM_MAPPABLE_FIELDS.filter((field) => !mappings?.some((mapping) => mapping.field === field));
  const mappingError = (errors.propertyMappings as { message?: string } | undefined)?.message;

  return (
    <Stack gap="sm">
      <Fieldset legend={`Write to your own ${crm} fields`}>
        <Stack gap="xs">
          <Text size="sm">
            The product&apos;s own properties are always written. A mapping also writes a research output to one of the fields in {crm}, by its rule: only fill when
            empty, overwrite, or never.
          </Text>
          {fields.length === 0 && <Text size="sm" c="dimmed">No mappings: only the product&apos;s own properties are written.</Text>}
          {fields.map((item, index) => (
            <Group key={item.id} role="group" aria-label={`Mapping ${index + 1}`} align="flex-end" wrap="wrap">
              <Controller
                control={control}
                name={`propertyMappings.${index}.field`}
                render={({ field }) => (
                  <Select
                    label="Research output"
                    data={CRM_MAPPABLE_FIELDS.map((value) => ({ value, label: CRM_MAPPABLE_FIELD_LABELS[value] }))}
                    allowDeselect={false}
                    value={field.value}
                    onChange={(value) => field.onChange(value ?? '')}
                  />
                )}
              />
              <Controller
                control={control}
                name={`propertyMappings.${index}.property`}
                render={({ field }) => (
                  <Select
                    label={`${crm} field`}
                    placeholder="Choose a property"
                    data={propertyChoices(mappings?.[index]?.field ?? '', field.value)}
                    searchable
                    allowDeselect={false}
                    value={field.value || null}
                    onChange={(value) => field.onChange(value ?? '')}
                  />
                )}
              />
              <Controller
                control={control}
                name={`propertyMappings.${index}.rule`}
                render={({ field }) => (
                  <Select label="Rule" data={WRITE_RULES.map((value) => ({ value, label: WRITE_RULE_LABELS[value] }))} allowDeselect={false} value={field.value} onChange={(value) => field.onChange(value ?? 'fill_empty')} />
                )}
              />
              <Button variant="default" color="red" aria-label={`Remove mapping ${index + 1}`} onClick={() => remove(index)}>
                Remove
              </Button>
            </Group>
          ))}
          {mappingError && (
            <Text role="alert" c="red.9" size="sm">
              {mappingError}
            </Text>
          )}
          <Group>
            <Button
              variant="default"
              size="xs"
              disabled={unused.length === 0 || props.mappable === null}
              onClick={() => append({ field: unused[0]!, property: '', rule: 'fill_empty' })}
            >
              Add a property mapping
            </Button>
          </Group>
        </Stack>
      </Fieldset>
      <Controller
        control={control}
        name="reEnrich"
        render={({ field }) => (
          <Switch
            label="Research completed contacts again"
            description="Off by default. A contact whose Enriched At is older than the days below is researched again by the runs: one credit each, shown in the preview."
            checked={field.value}
            onChange={(event) => field.onChange(event.currentTarget.checked)}
          />
        )}
      />
      {isReEnriching && (
        <Controller
          control={control}
          name="reEnrichAfterDays"
          render={({ field }) => (
            <NumberInput label="Research again after (days)" description="1 to 365 days." min={1} max={365} clampBehavior="none" value={field.value} onChange={field.onChange} error={errors.reEnrichAfterDays?.message} />
          )}
        />
      )}
    </Stack>
  );
}
