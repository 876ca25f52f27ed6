import { zodResolver } from '@hookform/resolvers/zod';
import { Button, PasswordInput, TextInput } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { PASSWORD_MIN_LENGTH, ZSignUp } from '../../../../../domain/dashboard/schemas.ts';
import { AuthLayout, FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { auth } from '../../../lib/auth.ts';

export default function SignUp() {
  const form = useForm({ resolver: zodResolver(ZSignUp), defaultValues: { email: '', password: '' } });
  const signUp = useMutation({ mutationFn: (values: { email: string; password: string }) => auth.signUp(values.email, values.password) });
  const { errors } = form.formState;

  return (
    <AuthLayout title="Create your account" links={[{ to: '/sign-in', label: 'Already have an account? Sign in' }]}>
      {signUp.isSuccess ? (
        <FormNotice>
          Check your inbox: we have sent a link to {signUp.variables.email}. Open it to verify your address and sign in.
        </FormNotice>
      ) : (
        <form onSubmit={form.handleSubmit((values) => signUp.mutate(values))} noValidate>
          <TextInput label="E-mail" type="email" autoComplete="email" required mb="sm" error={errors.email?.message} {...form.register('email')} />
          <PasswordInput
            label="Password"
            // The error repeats the rule; with both, a screen reader would say it twice.
            description={errors.password ? undefined : `At least ${PASSWORD_MIN_LENGTH} characters.`}
            autoComplete="new-password"
            required
            mb="md"
            error={errors.password?.message}
            // Mantine's PasswordInput leaves aria-invalid off its inner input; the field is marked here.
            aria-invalid={errors.password ? true : undefined}
            {...form.register('password')}
          />
          <FormError error={signUp.error} />
          <Button type="submit" fullWidth mt="md" loading={signUp.isPending}>
            Create account
          </Button>
        </form>
      )}
    </AuthLayout>
  );
}
