import { zodResolver } from '@hookform/resolvers/zod';
import { Button, Card, Checkbox, List, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { z } from 'zod';
import { ZAccountDeletion } from '../../../../../domain/dashboard/schemas.ts';
import { PageTitle } from '../../../components/app-layout.tsx';
import { FormError } from '../../../components/auth-layout.tsx';
import { ApiError, api } from '../../../lib/api-client.ts';

const ZDeletionForm = ZAccountDeletion.extend({ isUnderstood: z.literal(true, { error: 'Tick the box to confirm.' }) });

export default function AccountPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const form = useForm({ resolver: zodResolver(ZDeletionForm), defaultValues: { password: '', isUnderstood: false as unknown as true } });
  const remove = useMutation({
    mutationFn: (password: string) => api('/account/delete', { body: { password } }),
    onSuccess: async () => {
      queryClient.clear();
      await navigate('/sign-in?deleted=1');
    },
    onError: (error) => {
      if (error instanceof ApiError && error.fields.password) form.setError('password', { message: error.fields.password });
    },
  });
  const { errors } = form.formState;
  return (
    <>
      <PageTitle>Account</PageTitle>
      <Card withBorder maw={640} component="section" aria-labelledby="delete-heading">
        <Title order={2} size="h3" id="delete-heading" mb="sm">
          Delete your account
        </Title>
        <Text mb="xs">At once:</Text>
        <List size="sm" mb="sm">
          <List.Item>every API key is revoked: requests with them get 401 invalid_key;</List.Item>
          <List.Item>you are signed out everywhere and cannot sign in again;</List.Item>
          <List.Item>a paid subscription is cancelled, with no further payment;</List.Item>
          <List.Item>a CRM integration is paused and its access revoked.</List.Item>
        </List>
        <Text mb="xs">Within a day (always within 30 days):</Text>
        <List size="sm" mb="sm">
          <List.Item>every enriched prospect, company and decision maker, every job, product context and setting is deleted;</List.Item>
          <List.Item>a confirmation e-mail goes to your address, which is then removed too.</List.Item>
        </List>
        <Text size="sm" mb="md">
          Kept: the credit ledger and invoices (billing records) and an empty account record, so its number is never reused. Jobs still
          running finish first.
        </Text>
        <form onSubmit={form.handleSubmit((values) => remove.mutate(values.password))} noValidate>
          <Stack>
            <PasswordInput label="Your password" autoComplete="current-password" required error={errors.password?.message} {...form.register('password')} />
            <Checkbox label="I understand that this cannot be undone" error={errors.isUnderstood?.message} {...form.register('isUnderstood')} />
            {!(remove.error instanceof ApiError && remove.error.fields.password) && <FormError error={remove.error} />}
            <Button type="submit" color="red" loading={remove.isPending} w="fit-content">
              Delete my account and its data
            </Button>
          </Stack>
        </form>
      </Card>
    </>
  );
}
