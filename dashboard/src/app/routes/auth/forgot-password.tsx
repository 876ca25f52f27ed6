import { Button, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { AuthLayout, FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { auth } from '../../../lib/auth.ts';

export default function ForgotPassword() {
  const form = useForm({ defaultValues: { email: '' } });
  const request = useMutation({ mutationFn: (email: string) => auth.requestPasswordReset(email.trim()) });
  return (
    <AuthLayout title="Reset your password" links={[{ to: '/sign-in', label: 'Back to sign-in' }]}>
      {request.isSuccess ? (
        <FormNotice>If an account uses that address, a reset link is on its way. It works for one hour.</FormNotice>
      ) : (
        <form onSubmit={form.handleSubmit((values) => request.mutate(values.email))} noValidate>
          <TextInput label="E-mail" type="email" autoComplete="email" required mb="md" {...form.register('email', { required: true })} />
          <FormError error={request.error} />
          <Button type="submit" fullWidth mt="md" loading={request.isPending}>
            Send reset link
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}
