import { zodResolver } from '@hookform/resolvers/zod';
import { Button, PasswordInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { Link, useSearchParams } from 'react-router';
import { z } from 'zod';
import { PASSWORD_MIN_LENGTH, ZSignUp } from '../../../../../domain/dashboard/schemas.ts';
import { AuthLayout, FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { auth } from '../../../lib/auth.ts';

const ZNewPassword = z.object({ password: ZSignUp.shape.password });

export default function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const form = useForm({ resolver: zodResolver(ZNewPassword), defaultValues: { password: '' } });
  const reset = useMutation({ mutationFn: (password: string) => auth.resetPassword(token ?? '', password) });

  if (!token || params.get('error')) {
    return (
      <AuthLayout title="Choose a new password" links={[{ to: '/forgot-password', label: 'Request a new link' }]}>
        <FormError error={new Error('This reset link is invalid or has expired.')} />
      </AuthLayout>
    );
  }
  return (
    <AuthLayout title="Choose a new password">
      {reset.isSuccess ? (
        <>
          <FormNotice>Your password is changed, and every other session has been signed out.</FormNotice>
          <Button component={Link} to="/sign-in">
            Sign in
          </Button>
        </>
      ) : (
        <form onSubmit={form.handleSubmit((values) => reset.mutate(values.password))} noValidate>
          <PasswordInput
            label="New password"
            // The error repeats the rule; with both, a screen reader would say it twice.
            description={form.formState.errors.password ? undefined : `At least ${PASSWORD_MIN_LENGTH} characters.`}
            autoComplete="new-password"
            required
            mb="md"
            error={form.formState.errors.password?.message}
            // Mantine's PasswordInput leaves aria-invalid off its inner input; the field is marked here.
            aria-invalid={form.formState.errors.password ? true : undefined}
            {...form.register('password')}
          />
          <FormError error={reset.error} />
          <Button type="submit" fullWidth mt="md" loading={reset.isPending}>
            Set new password
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}
