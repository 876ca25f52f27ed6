import { Button, Checkbox, Group, NumberInput, Select, SimpleGrid, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useEffect } from 'react';
import { Controller, useForm } from 'react-hook-form';
import { CADENCE_LABELS, CADENCES } from '../../../../../domain/crm/crm.ts';
import { FormError } from '../../../components/auth-layout.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { formatDateTime } from '../../../lib/format.ts';
import type { CrmScoreProperties, CrmSettingsValues } from '../api.ts';
import { useCrmName } from '../crm-name.ts';
import type { PropertyMapping } from '../../../../../domain/crm/write-rules.ts';
import { CrmWriteRulesFields, type WriteRulesValues } from './crm-write-rules-fields.tsx';

interface FormValues extends WriteRulesValues {
  cadence: string;
  hourUtc: number | string;
  scoreProperty: string;
  minScore: number | string;
  skipFreeMail: boolean;
  skipRoleBased: boolean;
  researchLimit: number | string;
  chatWebhookUrl: string;
  digestEnabled: boolean;
  digestEmail: string;
  active: boolean;
  crmObject: string;
}

/** A re-enrichment turned on starts from this many days. */
const RE_ENRICH_DAYS_DEFAULT = 90;

const toForm = (settings: CrmSettingsValues): FormValues => ({
  ...settings,
  chatWebhookUrl: settings.chatWebhookUrl ?? '',
  digestEmail: settings.digestEmail ?? '',
  crmObject: settings.crmObject ?? 'Contact',
  propertyMappings: settings.propertyMappings.map((mapping) => ({ ...mapping })),
  reEnrich: settings.reEnrichAfterDays !== null,
  reEnrichAfterDays: settings.reEnrichAfterDays ?? RE_ENRICH_DAYS_DEFAULT,
});

// Numbers go to the server as typed (a blank stays blank): the server's checks name the field.
const toNumber = (value: number | string) => (value === '' ? null : Number(value));

const HOURS = Array.from({ length: 24 }, (_, hour) => ({ value: String(hour), label: `${String(hour).padStart(2, '0')}:00 UTC` }));

/** A product's CRM settings (docs/crm.md#what-a-sync-does); the server validates, and its messages land on the fields. */
export function CrmSettingsForm(props: {
  initial: CrmSettingsValues;
  /** The portal's lead-score candidates (null: not connected, or not read yet). */
  scoreProperties: CrmScoreProperties | null;
  scorePropertiesError: Error | null;
  isReloadingScoreProperties: boolean;
  /** Reads the fields from the CRM again (null: not connected). */
  onReloadScoreProperties: (() => void) | null;
  isSaving: boolean;
  error: Error | null;
  onSave(values: CrmSettingsValues): void;
}) {
  const crm = useCrmName();
  const isSalesforce = props.scoreProperties?.provider === 'salesforce';
  const hasNoDefaultScore = props.scoreProperties !== null && props.scoreProperties.defaultScoreProperty === null;
  const form = useForm<FormValues>({ defaultValues: toForm(props.initial) });
  const { errors } = form.formState;
  const { initial } = props;
  useEffect(() => form.reset(toForm(initial)), [initial, form]);
  useEffect(() => {
    if (!(props.error instanceof ApiError)) return;
    for (const [field, message] of Object.entries(props.error.fields)) {
      if (field in toForm(initial)) form.setError(field as keyof FormValues, { message });
    }
  }, [props.error, form, initial]);

  const properties = props.scoreProperties?.properties ?? (initial.scoreProperty ? [{ name: initial.scoreProperty, label: initial.scoreProperty }] : []);
  // The server's messages from the last save go first: one kept on the mappings (no input of its own) would block this one.
  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    form.clearErrors();
    return save(event);
  };
  const save = form.handleSubmit((values) =>
    props.onSave({
      cadence: values.cadence as CrmSettingsValues['cadence'],
      hourUtc: toNumber(values.hourUtc) as number,
      scoreProperty: values.scoreProperty,
      minScore: toNumber(values.minScore) as number,
      skipFreeMail: values.skipFreeMail,
      skipRoleBased: values.skipRoleBased,
      researchLimit: toNumber(values.researchLimit) as number,
      chatWebhookUrl: values.chatWebhookUrl.trim() || null,
      digestEnabled: values.digestEnabled,
      digestEmail: values.digestEmail.trim() || null,
      active: values.active,
      // As chosen: the server checks each against the portal's properties and says which is wrong.
      propertyMappings: values.propertyMappings as PropertyMapping[],
      reEnrichAfterDays: values.reEnrich ? (toNumber(values.reEnrichAfterDays) as number) : null,
      crmObject: isSalesforce ? (values.crmObject as 'Contact' | 'Lead') : null,
    }),
  );

  return (
    <form onSubmit={submit} noValidate aria-label="CRM settings">
      <Stack gap="sm">
        <Controller
          control={form.control}
          name="active"
          render={({ field }) => (
            <Switch
              label="Active: run on the schedule"
              description="Paused integrations run neither on the schedule nor with Run now."
              checked={field.value}
              onChange={(event) => field.onChange(event.currentTarget.checked)}
              error={errors.active?.message}
            />
          )}
        />
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <Controller
            control={form.control}
            name="cadence"
            render={({ field }) => (
              <Select label="Schedule" data={CADENCES.map((value) => ({ value, label: CADENCE_LABELS[value] }))} allowDeselect={false} value={field.value} onChange={(value) => field.onChange(value)} error={errors.cadence?.message} />
            )}
          />
          <Controller
            control={form.control}
            name="hourUtc"
            render={({ field }) => (
              <Select label="Hour (UTC)" data={HOURS} allowDeselect={false} value={String(field.value)} onChange={(value) => field.onChange(value === null ? '' : Number(value))} error={errors.hourUtc?.message} />
            )}
          />
          <Controller
            control={form.control}
            name="scoreProperty"
            render={({ field }) => (
              <Select
                label="Lead score property"
                description={
                  hasNoDefaultScore
                    ? `${crm} has no lead score of its own: choose the number field your team scores with.`
                    : `A number field of the ${isSalesforce ? 'records' : 'contacts'} in ${crm}.`
                }
                placeholder="Choose a number field"
                data={properties.map((property) => ({ value: property.name, label: `${property.label} (${property.name})` }))}
                searchable
                allowDeselect={false}
                // One not offered (another CRM's field, kept from before a switch of CRM) is shown as none chosen; saving it names it in the field's error.
                value={properties.some((property) => property.name === field.value) ? field.value : null}
                onChange={(value) => field.onChange(value ?? '')}
                error={errors.scoreProperty?.message}
              />
            )}
          />
          {isSalesforce && (
            <Controller
              control={form.control}
              name="crmObject"
              render={({ field }) => (
                <Select
                  label="Records to research"
                  description="Salesforce keeps prospects as Leads and customers' people as Contacts."
                  data={[{ value: 'Contact', label: 'Contacts' }, { value: 'Lead', label: 'Leads' }]}
                  allowDeselect={false}
                  value={field.value}
                  onChange={(value) => field.onChange(value ?? 'Contact')}
                />
              )}
            />
          )}
          {props.onReloadScoreProperties && (
            <Stack gap={4} justify="flex-end">
              <Text size="sm">
                {props.scoreProperties ? `Fields read from ${crm} ${formatDateTime(props.scoreProperties.readAt)}.` : `Reading the fields from ${crm}…`}
              </Text>
              <Group>
                <Button variant="default" size="xs" loading={props.isReloadingScoreProperties} onClick={props.onReloadScoreProperties}>
                  Reload fields from {crm}
                </Button>
              </Group>
              <FormError error={props.scorePropertiesError} />
            </Stack>
          )}
          <Controller
            control={form.control}
            name="minScore"
            render={({ field }) => <NumberInput label="Minimum score" min={0} value={field.value} onChange={field.onChange} error={errors.minScore?.message} />}
          />
          <Controller
            control={form.control}
            name="researchLimit"
            render={({ field }) => (
              <NumberInput label="Research limit per run" description="1 to 50 contacts; each costs one credit." min={1} max={50} clampBehavior="none" value={field.value} onChange={field.onChange} error={errors.researchLimit?.message} />
            )}
          />
        </SimpleGrid>
        <Checkbox label="Skip free-mail addresses (Gmail, Outlook …)" {...form.register('skipFreeMail')} error={errors.skipFreeMail?.message} />
        <Checkbox label="Skip role-based mailboxes (info@, sales@ …)" {...form.register('skipRoleBased')} error={errors.skipRoleBased?.message} />
        <TextInput
          label="Chat webhook URL"
          description="Optional. A Slack-style incoming webhook (https): one summary per run and one message per contact."
          error={errors.chatWebhookUrl?.message}
          {...form.register('chatWebhookUrl')}
        />
        <CrmWriteRulesFields control={form.control} errors={errors} mappable={props.scoreProperties?.mappableProperties ?? null} />
        <Checkbox label="E-mail a summary after each run that researched someone" {...form.register('digestEnabled')} error={errors.digestEnabled?.message} />
        <TextInput label="Summary address" description="Optional. Empty: the account e-mail." error={errors.digestEmail?.message} {...form.register('digestEmail')} />
        {!(props.error instanceof ApiError && Object.keys(props.error.fields).length > 0) && <FormError error={props.error} />}
        <Group justify="flex-end">
          <Button type="submit" loading={props.isSaving}>
            Save settings
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
