import { Button, PasswordInput, Text, TextInput } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { AuthLayout, FormError, FormNotice } from '../../../components/auth-layout.tsx';
import { authorizationRequestPath, hasExpired, signedOAuthQuery } from '../../../features/agents/oauth-request.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { auth } from '../../../lib/auth.ts';

export default function SignIn() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const form = useForm<{ email: string; password: string }>({ defaultValues: { email: '', password: '' } });
  const [params] = useSearchParams();
  // An AI agent's authorization request (the OAuth provider sent the owner here to sign in first) travels through sign-in.
  const location = useLocation();
  const agentRequest = signedOAuthQuery(location.search);
  const isAgentRequestExpired = agentRequest !== null && hasExpired(agentRequest);
  const oauthQuery = isAgentRequestExpired ? null : agentRequest;
  const [notice, setNotice] = useState<string | null>(
    params.get('deleted')
      ? 'Your account is being deleted. Its keys no longer work; a confirmation e-mail follows when its data is gone.'
      : params.get('link') === 'expired'
        ? 'That sign-in link has expired or was used already. Ask for a new one below.'
        : null,
  );
  const signInLink = useMutation({
    mutationFn: (email: string) => auth.requestSignInLink(email, oauthQuery && authorizationRequestPath(location.search)),
    onSuccess: () => setNotice(`If an account uses that address, a sign-in link is on its way. It works once, for 15 minutes.`),
  });
  const signIn = useMutation({
    mutationFn: (values: { email: string; password: string }) => auth.signIn(values.email.trim(), values.password, oauthQuery),
    onSuccess: async (reply) => {
      queryClient.clear();
      if (oauthQuery && reply?.redirect && reply.url) return window.location.assign(reply.url);
      await navigate('/keys');
    },
  });
  const isUnverified = signIn.error instanceof ApiError && signIn.error.code === 'email_not_verified';

  return (
    <AuthLayout
      title="Sign in"
      links={[
        { to: '/sign-up', label: 'New here? Create an account' },
        { to: '/forgot-password', label: 'Forgot your password?' },
      ]}
    >
      {isAgentRequestExpired && <FormNotice>The AI agent's request has expired. Sign in, then connect again from your agent.</FormNotice>}
      {oauthQuery && <Text>Sign in to connect an AI agent to your account. You will see what it asks for before anything is allowed.</Text>}
      <form onSubmit={form.handleSubmit((values) => signIn.mutate(values))} noValidate>
        <TextInput label="E-mail" type="email" autoComplete="email" required mb="sm" {...form.register('email', { required: true })} />
        <PasswordInput label="Password" autoComplete="current-password" required mb="md" {...form.register('password', { required: true })} />
        {isUnverified ? (
          <FormNotice>
            Verify your e-mail address first: we have sent you a new link.
          </FormNotice>
        ) : (
          <FormError error={signIn.error} />
        )}
        {notice && <FormNotice>{notice}</FormNotice>}
        <Button type="submit" fullWidth mt="md" loading={signIn.isPending}>
          Sign in
        </Button>
      </form>
      <Button
        variant="subtle"
        fullWidth
        mt="xs"
        loading={signInLink.isPending}
        onClick={() => void form.trigger('email').then((isValid) => isValid && signInLink.mutate(form.getValues('email').trim()))}
      >
        E-mail me a sign-in link instead
      </Button>
      <FormError error={signInLink.error} />
      {isUnverified && (
        <Button variant="subtle" onClick={() => void auth.resendVerification(form.getValues('email').trim()).then(() => setNotice('Sent again. Check your inbox.'))}>
          Send the verification link again
        </Button>
      )}
    </AuthLayout>
  );
}
