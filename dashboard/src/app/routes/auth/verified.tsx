import { Button } from '@mantine/core';
import { Link, useSearchParams } from 'react-router';
import { AuthLayout, FormError, FormNotice } from '../../../components/auth-layout.tsx';

/** Where the e-mailed verification link lands (better-auth signs the user in when the token is good). */
export default function Verified() {
  const [params] = useSearchParams();
  const error = params.get('error');
  return (
    <AuthLayout title={error ? 'The link did not work' : 'E-mail address verified'}>
      {error ? (
        <FormError error={new Error('This verification link is invalid or has expired. Sign in to get a new one.')} />
      ) : (
        <FormNotice>Your address is verified. You can now create API keys.</FormNotice>
      )}
      <Button component={Link} to={error ? '/sign-in' : '/keys'}>
        {error ? 'Go to sign-in' : 'Go to your API keys'}
      </Button>
    </AuthLayout>
  );
}
