import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, NativeSelect, Stack, Switch, Text, TextInput } from '@mantine/core';
import { useForm } from 'react-hook-form';
import { ZPreferences, type TPreferences } from '../../../../../domain/dashboard.ts';
import { LANGUAGE_NAMES, LANGUAGES } from '../../../../../domain/languages.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { QueryState } from '../../../components/query-state.tsx';
import { useMe } from '../../../features/account/api.ts';
import { useSavePreferences } from '../../../features/preferences/api.ts';

export default function PreferencesPage() {
  const me = useMe();
  return (
    <>
      <PageTitle>Preferences</PageTitle>
      <QueryState query={me} label="your preferences">
        {(account) => <PreferencesForm email={account.email} initial={{ language: account.language, usageAlerts: account.usageAlerts }} />}
      </QueryState>
    </>
  );
}

function PreferencesForm({ email, initial }: { email: string; initial: TPreferences }) {
  const form = useForm<TPreferences>({ resolver: zodResolver(ZPreferences), defaultValues: initial });
  const save = useSavePreferences();
  return (
    <Card withBorder maw={520}>
      <form onSubmit={form.handleSubmit((values) => save.mutate(values))} noValidate>
        <Stack>
          <TextInput label="Account e-mail" value={email} readOnly description="Alerts and digests go here; it is also how you sign in." />
          <NativeSelect
            label="Output language"
            description="Every AI-written text of future jobs (summaries, opening talk, insights) is in this language."
            data={LANGUAGES.map((language) => ({ value: language, label: LANGUAGE_NAMES[language] }))}
            error={form.formState.errors.language?.message}
            {...form.register('language')}
          />
          <Switch
            label="E-mail me when this cycle's credit usage reaches 75 % and 95 %"
            description="Each alert goes out at most once per billing cycle."
            {...form.register('usageAlerts')}
          />
          <FormError error={save.error} />
          {save.isSuccess && <FormNotice>Saved. The next job is written in {LANGUAGE_NAMES[save.data.language]}.</FormNotice>}
          <Button type="submit" loading={save.isPending} w="fit-content">
            Save preferences
          </Button>
        </Stack>
      </form>
      <Text size="xs" c="dimmed" mt="md">
        Prospect titles and company descriptions are always in English.
      </Text>
    </Card>
  );
}
