import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, NativeSelect, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { auth } from '../../../lib/auth.ts';
import { useForm } from 'react-hook-form';
import { ZPreferences, ZSignUp, type TPreferences } from '../../../../../domain/dashboard/schemas.ts';
import { LANGUAGE_NAMES, LANGUAGES } from '../../../../../domain/research/languages.ts';
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
        {(account) => (
          <Stack maw={520}>
            <PreferencesForm initial={{ language: account.language, usageAlerts: account.usageAlerts }} />
            <AccountEmailForm email={account.email} />
          </Stack>
        )}
      </QueryState>
    </>
  );
}

function PreferencesForm({ initial }: { initial: TPreferences }) {
  const form = useForm<TPreferences>({ resolver: zodResolver(ZPreferences), defaultValues: initial });
  const save = useSavePreferences();
  return (
    <Card withBorder>
      <form onSubmit={form.handleSubmit((values) => save.mutate(values))} noValidate>
        <Stack>
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

const ZNewEmail = z.object({ newEmail: ZSignUp.shape.email });

/** A new address takes effect once the link sent to it is opened; until then the old one stays. */
function AccountEmailForm({ email }: { email: string }) {
  const form = useForm({ resolver: zodResolver(ZNewEmail), defaultValues: { newEmail: '' } });
  const change = useMutation({ mutationFn: (newEmail: string) => auth.changeEmail(newEmail) });
  return (
    <Card withBorder component="section" aria-labelledby="email-heading">
      <Title order={2} size="h4" id="email-heading" mb="xs">
        Account e-mail
      </Title>
      <Text size="sm" mb="sm">
        You sign in with {email}; usage alerts and digests go there too.
      </Text>
      <form onSubmit={form.handleSubmit((values) => change.mutate(values.newEmail))} noValidate>
        <Stack>
          <TextInput label="New e-mail address" type="email" autoComplete="email" error={form.formState.errors.newEmail?.message} {...form.register('newEmail')} />
          <FormError error={change.error} />
          {change.isSuccess && <FormNotice>We sent a link to {change.variables}. The address changes when you open it.</FormNotice>}
          <Button type="submit" variant="default" loading={change.isPending} w="fit-content">
            Send confirmation link
          </Button>
        </Stack>
      </form>
    </Card>
  );
}
